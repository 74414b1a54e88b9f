package clientlesson

// Program is what a student writes for a client lesson: a client.
func (Kind) Program() string { return "client" }
