//go:build race

package service

// raceDetector is whether the tests were built with -race.
const raceDetector = true
