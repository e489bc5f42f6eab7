package outbound

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/temoto/robotstxt"
)

// robotsAgent is the product token robots.txt groups are matched against.
const robotsAgent = "interlinker"

type robotsEntry struct {
	data    *robotstxt.RobotsData
	expires time.Time
}

// RobotsAllowed reports whether robots.txt of rawURL's origin lets interlinker
// fetch it. robots.txt is fetched through the client itself (same SSRF rules
// and politeness) and cached per origin for CacheTTL. Following the parser's
// convention, a 4xx robots.txt allows everything and a 5xx disallows
// everything; a transport failure is returned as an error and not cached.
func (c *Client) RobotsAllowed(ctx context.Context, rawURL string) (bool, error) {
	cu, err := c.guard.checkURL(rawURL)
	if err != nil {
		return false, fmt.Errorf("outbound: robots for %s: %w", redact(rawURL), err)
	}
	origin := cu.u.Scheme + "://" + cu.u.Host
	data, err := c.robotsFor(ctx, origin)
	if err != nil {
		return false, err
	}
	return data.TestAgent(cu.u.RequestURI(), robotsAgent), nil
}

func (c *Client) robotsFor(ctx context.Context, origin string) (*robotstxt.RobotsData, error) {
	c.robotsMu.Lock()
	e, ok := c.robots[origin]
	c.robotsMu.Unlock()
	if ok && time.Now().Before(e.expires) {
		c.metrics.cacheHits.Inc()
		return e.data, nil
	}
	v, err, _ := c.flight.Do("robots "+origin, func() (any, error) {
		page, err := c.Get(ctx, origin+"/robots.txt")
		// An over-long robots.txt is read up to the cap and the rest
		// ignored, as crawlers commonly do.
		if err != nil && !errors.Is(err, ErrBodyTooLarge) {
			return nil, fmt.Errorf("outbound: fetch robots.txt: %w", err)
		}
		data, err := robotstxt.FromStatusAndBytes(page.Status, page.Body)
		if err != nil {
			return nil, fmt.Errorf("outbound: parse %s/robots.txt: %w", origin, err)
		}
		c.robotsMu.Lock()
		c.robots[origin] = robotsEntry{data: data, expires: time.Now().Add(c.cfg.CacheTTL)}
		c.robotsMu.Unlock()
		return data, nil
	})
	if err != nil {
		return nil, err
	}
	return v.(*robotstxt.RobotsData), nil
}
