package wire

import "time"

func nowNanos() int64 { return time.Now().UnixNano() }
