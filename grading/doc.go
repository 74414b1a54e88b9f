// Package grading is the core of the lab's grader, shared by every lesson
// kind: what a graded result is (Result, CheckResult, Outcome, with its
// transcript of events), how checks are declared (Check, ParseChecks) and
// judged (Judges, the Tally a kind's judges fill in, Failure), how a lesson of any kind is
// found and graded (Kind, Lesson, LoadLesson, GradeKind), the options a
// grade takes (Options: the program, the time scale, sweeps), and how a
// verdict that rests on a deadline alone is confirmed before it is
// charged (Confirm).
//
// It knows no lesson, kind or check by name. A lesson kind (a server
// lesson, grading/serverlesson; a client lesson, grading/clientlesson) is
// one package behind the Kind interface, and internal/kinds puts the
// kinds together; reports are written by grading/report, a class is
// graded by grading/class, and programs are run in grading/sandbox.
package grading
