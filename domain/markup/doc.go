// Package markup places, strips and reads links in page HTML without
// changing any other byte.
//
// The contract:
//
//   - Place splices <a href="..." data-interlinker="ID"> and </a> around
//     text found by the x/net/html tokenizer; every byte outside the inserted
//     tags is the input's own, entities, whitespace, comments and broken
//     markup included. Only text inside a content <p> (not in the site's
//     header, nav, aside or footer), with nothing but inline formatting in
//     between, is eligible: never inside a, h1-h6, li, script, style,
//     template, textarea, title, code, pre, button, select, option, svg,
//     math, noscript, iframe, comments or attribute values, and never
//     across an element boundary.
//   - Anchors match case-insensitively, across character references and any
//     run of whitespace, as whole words (Unicode letters, digits and marks);
//     in Chinese, Japanese, Thai and other scripts without spaces, as
//     substrings. Every candidate is tried literally before any is tried as
//     a stemmed variation (Placement.Variation says which).
//   - Requests are served in order. Density: at most MaxLinksPerParagraph
//     links per paragraph and MinWordsBetweenLinks words between two links
//     in a paragraph, existing links included; an occurrence that does not
//     fit gives way to the next one, in the next paragraph if need be.
//     A page that already links to a request's href gets no second link.
//   - A link that cannot be placed is a Placement with Placed false and a
//     Reason. An error means unusable input or requests: an href that is not
//     an absolute path or an http(s) URL on the site's host (javascript:,
//     data: and every obfuscation of them included), a bad attribute name, a
//     missing or repeated ID. Nothing here panics on any input.
//   - StripInserted(Place(x)) == x, byte for byte, for any x without marker
//     attributes of its own. StripInternal unwraps every internal link and
//     removes generated blocks, leaving external links alone.
//   - RelatedArticles, RelatedReading and Breadcrumbs (nav plus schema.org
//     JSON-LD) write the generated blocks with configurable markup and
//     escaped text; InsertBlock splices one in, and StripInserted takes it
//     out again.
//   - For the LLM fallback, FallbackParagraph picks the paragraph to
//     rewrite and ReplaceParagraph accepts a rewrite only as text with basic
//     formatting and exactly one link to the target, which it rebuilds
//     (escaped, marked) and splices in; anything else is ErrBadRewrite.
//   - Links, Paragraphs and WordCount read a page for the audit.
//
// The scanner follows the HTML tree builder closely enough to know, for
// ordinary markup, what the parser will make of each run of text. Where a
// page is malformed in ways it does not model exactly (misnested formatting,
// foster-parented table content, HTML inside SVG), it says so, and Place has
// x/net/html parse its output and drops any link that did not land where
// intended. Well-formed pages never pay for that parse.
//
// The package is pure: no I/O, no global mutable state, and the same input
// always gives the same output.
package markup
