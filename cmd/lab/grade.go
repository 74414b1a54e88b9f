package main

import "context"

func gradeCmd(ctx context.Context, e *env, args []string) (int, error) {
	return exitCannot, usagef("not yet")
}

func gradeClassCmd(ctx context.Context, e *env, args []string) (int, error) {
	return exitCannot, usagef("not yet")
}
