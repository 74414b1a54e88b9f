// Command hostile is a lesson-3 client that attacks the grader, for the
// hostile client class test (grading/class/client_hostile_test.go; the
// expected outcomes are in ../EXPECTED.md). With -attack NAME it makes one
// attack; where the attack then needs a correct client, it runs the
// `student` test client found beside it (a second program, -client PATH)
// with the same --config and its own stdio.
//
//	hostile -attack NAME [-client PATH] --config PATH
//
// The attacks:
//
//	flood           every command is answered with a 4 MiB line, then 20 more
//	sockets         150 connections straight to the rig's h*.sock, each with
//	                4 MiB of an unfinished body, held open while a correct
//	                client runs
//	partial-stderr  a client that leaves its stdio servers running (the
//	                student client's no-kill mistake), then writes "partial"
//	                with no newline on stderr
//	peer            while a correct client runs, writes a request with no
//	                _meta to every other rig's sockets it finds under /tmp
//	kill-bridge     a client that leaves its stdio servers running (the
//	                student client's no-kill mistake), then kills its
//	                parent, the bridge that would report them (kill -9
//	                $PPID)
//	stop-bridge     the same, but stops the bridge (kill -STOP $PPID)
package main

import (
	"bufio"
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"time"
)

// The sizes of the attacks.
const (
	floodLine   = 4 << 20 // bytes of one flood line
	floodMore   = 20      // further lines after each answer
	socketConns = 150
	socketBody  = 4 << 20
)

func main() {
	attack := flag.String("attack", "", "the attack: flood, sockets, partial-stderr, peer, kill-bridge or stop-bridge")
	student := flag.String("client", "", "the correct client to run after the attack (default: client beside this program)")
	config := flag.String("config", "", "the servers")
	flag.Parse()
	if *student == "" {
		exe, err := os.Executable()
		if err != nil {
			fail(err)
		}
		*student = filepath.Join(filepath.Dir(exe), "client")
	}
	switch *attack {
	case "flood":
		flood()
	case "sockets":
		conns := holdSockets(*config)
		code := runClient(*student, *config)
		for _, c := range conns {
			c.Close()
		}
		os.Exit(code)
	case "partial-stderr":
		code := runClient(*student, *config, "-mistake", "no-kill")
		os.Stderr.WriteString("partial")
		os.Exit(code)
	case "kill-bridge", "stop-bridge":
		code := runClient(*student, *config, "-mistake", "no-kill")
		// The bridge is still waiting for this process, so it has not
		// reported the servers left running: end or stop it before it
		// can.
		sig := syscall.SIGKILL
		if *attack == "stop-bridge" {
			sig = syscall.SIGSTOP
		}
		if err := syscall.Kill(os.Getppid(), sig); err != nil {
			fmt.Fprintln(os.Stderr, "hostile: signalling the bridge:", err)
		}
		os.Exit(code)
	case "peer":
		stop := make(chan struct{})
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			peer(*config, stop)
		}()
		code := runClient(*student, *config)
		close(stop)
		wg.Wait()
		os.Exit(code)
	default:
		fail(fmt.Errorf("unknown attack %q", *attack))
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "hostile:", err)
	os.Exit(2)
}

// flood answers each command line with floodMore+1 lines of floodLine
// bytes, and exits 0 when stdin ends.
func flood() {
	line := bytes.Repeat([]byte("x"), floodLine)
	line[0], line[len(line)-1] = '"', '\n'
	out := bufio.NewWriterSize(os.Stdout, 64<<10)
	in := bufio.NewReader(os.Stdin)
	for {
		_, err := in.ReadString('\n')
		if err != nil {
			return
		}
		for range floodMore + 1 {
			if _, err := out.Write(line); err != nil {
				return
			}
		}
		if out.Flush() != nil {
			return
		}
	}
}

// runClient runs the correct client with the configuration and this
// program's stdio, and returns its exit status.
func runClient(path, config string, args ...string) int {
	cmd := exec.Command(path, append(args, "--config", config)...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &exit):
		return exit.ExitCode()
	}
	fmt.Fprintln(os.Stderr, "hostile:", err)
	return 2
}

// sockPath finds a socket path in a configuration.
var sockPath = regexp.MustCompile(`[^"\s]+\.sock`)

// rigDir is the folder of the rig's sockets, from the configuration.
func rigDir(config string) string {
	data, err := os.ReadFile(config)
	if err != nil {
		return filepath.Dir(config)
	}
	if m := sockPath.Find(data); m != nil {
		return filepath.Dir(string(m))
	}
	return filepath.Dir(config)
}

// holdSockets opens socketConns connections to the rig's h*.sock, each
// with the headers of a POST and socketBody bytes of a longer body, and
// leaves them open.
func holdSockets(config string) []net.Conn {
	socks, _ := filepath.Glob(filepath.Join(rigDir(config), "h*.sock"))
	if len(socks) == 0 {
		fmt.Fprintln(os.Stderr, "hostile: no h*.sock found beside", config)
		return nil
	}
	body := bytes.Repeat([]byte(`{"a":1}`), socketBody/7)
	var conns []net.Conn
	for i := range socketConns {
		c, err := net.DialTimeout("unix", socks[i%len(socks)], 2*time.Second)
		if err != nil {
			continue
		}
		conns = append(conns, c)
		go func() {
			c.SetWriteDeadline(time.Now().Add(10 * time.Second))
			fmt.Fprintf(c, "POST /mcp HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", 2*socketBody)
			c.Write(body)
		}()
	}
	return conns
}

// peer writes a request with no _meta to every rig socket under /tmp that
// is not its own, again and again until stop.
func peer(config string, stop <-chan struct{}) {
	own := rigDir(config)
	line := []byte(`{"jsonrpc":"2.0","id":"peer","method":"tools/list"}` + "\n")
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		var socks []string
		for _, pat := range []string{"/tmp/*/*.sock", "/tmp/*/*/*.sock", "/tmp/*/*/*/*.sock"} {
			m, _ := filepath.Glob(pat)
			socks = append(socks, m...)
		}
		for _, s := range socks {
			if filepath.Dir(s) == own || !strings.HasPrefix(filepath.Base(s), "s") {
				continue
			}
			c, err := net.DialTimeout("unix", s, 200*time.Millisecond)
			if err != nil {
				continue
			}
			c.SetDeadline(time.Now().Add(200 * time.Millisecond))
			c.Write(line)
			io.Copy(io.Discard, io.LimitReader(c, 4<<10))
			c.Close()
		}
		select {
		case <-stop:
			return
		case <-tick.C:
		}
	}
}
