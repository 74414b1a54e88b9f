// Package wine runs the lab's Windows build on Linux, under Wine, for the
// smoke tests that show the student commands work on Windows: it finds
// Wine, makes a Wine prefix (a Windows folder tree) ready for a Go program,
// and starts a program in it.
package wine

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// knownPlaces are where Debian's packages put the 64-bit Wine loader when
// no "wine" command is on PATH (the wine64 package alone installs no
// wrapper there).
func knownPlaces() []string {
	return []string{"/usr/lib/wine/wine64", "/usr/lib/x86_64-linux-gnu/wine/wine64"}
}

// Find returns the path of a Wine that can run 64-bit Windows programs, or
// an error saying none is installed and how to install one.
func Find() (string, error) {
	for _, name := range []string{"wine64", "wine"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	for _, p := range knownPlaces() {
		if info, err := os.Stat(p); err == nil && info.Mode().IsRegular() && info.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", errors.New("no Wine here (neither wine64 nor wine on PATH, nor " + strings.Join(knownPlaces(), " or ") +
		"): install it with apt-get install wine64 to run the Windows smoke tests")
}

// Wine is a Wine loader and the prefix it runs programs in.
type Wine struct {
	Loader string // the wine or wine64 program
	Prefix string // the WINEPREFIX folder
}

// processPrngShim is the DLL Go programs need and Wine before 9 lacks.
const processPrngShim = "bcryptprimitives.dll"

// NewPrefix makes a Wine prefix in dir (a folder of its own, which it
// creates) with loader, and puts in its system32 folder a
// bcryptprimitives.dll that forwards ProcessPrng to
// advapi32.SystemFunction036 (see ForwarderDLL), unless the prefix's Wine
// has one of its own. It takes some seconds: wineboot sets up the folder
// tree and the registry.
func NewPrefix(ctx context.Context, loader, dir string) (*Wine, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("making the Wine prefix: %w", err)
	}
	w := &Wine{Loader: loader, Prefix: dir}
	cmd := w.Command(ctx, "wineboot", "--init")
	if out, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("wineboot --init in %s: %w; it said: %s", dir, err, tail(out, 2000))
	}
	sys32 := filepath.Join(dir, "drive_c", "windows", "system32")
	if info, err := os.Stat(sys32); err != nil || !info.IsDir() {
		return nil, fmt.Errorf("wineboot made no %s", sys32)
	}
	if _, err := os.Lstat(filepath.Join(sys32, processPrngShim)); err == nil {
		return w, nil // this Wine has the DLL (Wine 9 and later)
	}
	if hasBuiltin(loader, processPrngShim) {
		return w, nil
	}
	dll, err := ForwarderDLL(processPrngShim, []Forward{{Name: "ProcessPrng", To: "advapi32.SystemFunction036"}})
	if err != nil {
		return nil, err
	}
	f, err := os.OpenFile(filepath.Join(sys32, processPrngShim), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return nil, fmt.Errorf("adding %s to the Wine prefix: %w", processPrngShim, err)
	}
	_, err = f.Write(dll)
	if err = errors.Join(err, f.Close()); err != nil {
		return nil, fmt.Errorf("adding %s to the Wine prefix: %w", processPrngShim, err)
	}
	return w, nil
}

// hasBuiltin reports whether the Wine of loader ships the DLL name among
// its built-in 64-bit DLLs.
func hasBuiltin(loader, name string) bool {
	real, err := filepath.EvalSymlinks(loader)
	if err != nil {
		return false
	}
	for _, dir := range []string{
		filepath.Join(filepath.Dir(real), "x86_64-windows"),
		filepath.Join(filepath.Dir(real), "..", "x86_64-linux-gnu", "wine", "x86_64-windows"),
		"/usr/lib/x86_64-linux-gnu/wine/x86_64-windows",
	} {
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
			return true
		}
	}
	return false
}

// Command returns the command that runs program (a Windows program's path
// on this machine, or a Wine tool such as "wineboot") with args in the
// prefix, with Wine's own debug output off.
func (w *Wine) Command(ctx context.Context, program string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, w.Loader, append([]string{program}, args...)...)
	cmd.Env = append(os.Environ(), "WINEPREFIX="+w.Prefix, "WINEDEBUG=-all", "DISPLAY=", "WAYLAND_DISPLAY=")
	return cmd
}

// Shutdown ends the prefix's wineserver and every Windows program still
// running in the prefix (wineserver -k), so its folder can be removed.
func (w *Wine) Shutdown(ctx context.Context) error {
	server := filepath.Join(filepath.Dir(w.Loader), "wineserver")
	if _, err := os.Stat(server); err != nil {
		if server, err = exec.LookPath("wineserver"); err != nil {
			return fmt.Errorf("ending the Wine prefix %s: no wineserver found beside %s or on PATH", w.Prefix, w.Loader)
		}
	}
	cmd := exec.CommandContext(ctx, server, "-k")
	cmd.Env = append(os.Environ(), "WINEPREFIX="+w.Prefix)
	if out, err := cmd.CombinedOutput(); err != nil && len(out) > 0 {
		return fmt.Errorf("ending the Wine prefix %s: %w; it said: %s", w.Prefix, err, tail(out, 500))
	}
	return nil
}

// tail is the last at most n bytes of b, as text.
func tail(b []byte, n int) string {
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return strings.TrimSpace(string(b))
}
