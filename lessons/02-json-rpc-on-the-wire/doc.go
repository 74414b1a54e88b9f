// Package lesson02 holds tests only: they record sessions with lesson 2's
// help desk (the transcripts under sessions/, which the lesson quotes) and
// hold the lesson's text to what the help desk really sends.
package lesson02
