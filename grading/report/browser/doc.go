// Package browser holds the test that opens the lab's HTML reports in a
// real, headless Chromium (driven by github.com/chromedp/chromedp): a grade
// page of a known-bad program of each lesson, the page of a server whose
// output holds markup and terminal escapes, and a class page. It checks what
// a student and a teacher see: every check listed, one timeline mark per
// event in time order, evidence links that land on their marks, no console
// error, nothing fetched from the network, and no student text run as
// markup. The package has no code of its own.
package browser
