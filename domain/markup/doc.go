// Package markup places, strips and reads links in page HTML without
// changing any other byte.
//
// The contract:
//
//   - Place splices <a href="..." data-interlinker="ID"> ... </a> around
//     text found by the x/net/html tokenizer; every byte outside the inserted
//     tags is the input's own, entities, whitespace and broken markup
//     included. Only text inside <p>, with nothing but inline formatting in
//     between, is eligible; never inside a, h1-h6, li, script, style,
//     template, textarea, title, code, pre, button, select, option, svg,
//     math, noscript, iframe, comments or attribute values, and never across
//     an element boundary.
//   - Anchors match case-insensitively, across entities and any run of
//     whitespace, as whole words (Unicode letters, digits and marks); in
//     Chinese, Japanese, Thai and other no-space scripts as substrings.
//     Failing a literal match, a stemmed variation matches and is reported.
//   - Density: at most Options.MaxLinksPerParagraph links per paragraph and
//     Options.MinWordsBetweenLinks words between two links in one paragraph,
//     existing links included; a link that does not fit tries the next match.
//   - A link that cannot be placed is a Placement with Placed false and a
//     Reason. An error means unusable input or requests (an href that is not
//     an absolute path or an http(s) URL on the site's host, a bad
//     attribute, a repeated ID); nothing in this package panics on input.
//   - StripInserted(Place(x)) == x, byte for byte, for any x that carries
//     no marker of its own. StripInternal unwraps every internal link.
//   - Links, Paragraphs and WordCount read a page for the audit.
//
// The package is pure: no I/O, no global mutable state, and the same input
// always gives the same output.
package markup
