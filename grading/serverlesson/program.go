package serverlesson

// Program is what a student writes for a server lesson: a server.
func (Kind) Program() string { return "server" }
