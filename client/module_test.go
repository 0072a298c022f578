package client_test

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestImportFromAnotherModule does what a user of `go get seald.dev/seald/client` does, against this
// checkout: a fresh module in a temporary directory, outside the repository, requires this module (replaced
// by the checkout's directory) and builds a program that imports the client package. It fails when the
// module path has no dot in its first element (Go then takes it for a standard-library path, goimports sorts
// it among them, and no one can require it) or when the client package does not build from another module.
// It runs offline: the client needs the standard library only, so GOPROXY=off is enough.
func TestImportFromAnotherModule(t *testing.T) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		t.Fatalf("go env GOMOD: %v", err)
	}
	gomod := strings.TrimSpace(string(out))
	if gomod == "" || gomod == os.DevNull {
		t.Fatalf("the client package is not inside a module (GOMOD %q)", gomod)
	}
	module := modulePath(t, gomod)
	if first, _, _ := strings.Cut(module, "/"); !strings.Contains(first, ".") {
		t.Fatalf("module path %q: its first element %q has no dot, so another module cannot require it", module, first)
	}

	dir := t.TempDir()
	write := func(name, text string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module example.com/consumer\n\ngo 1.26\n\nrequire "+module+" v0.0.0\n\nreplace "+module+" => "+
		filepath.Dir(gomod)+"\n")
	write("main.go", `package main

import (
	"fmt"

	"`+module+`/client"
)

func main() {
	c := client.New("https://seal.example", client.WithKeys("subscription", "api"))
	fmt.Println(c != nil)
}
`)
	cmd := exec.Command("go", "build", "-o", filepath.Join(dir, "consumer"), ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOWORK=off")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("a module outside the repository cannot build with %s/client: %v\n%s", module, err, out)
	}
	run, err := exec.Command(filepath.Join(dir, "consumer")).Output()
	if err != nil || !bytes.Equal(run, []byte("true\n")) {
		t.Errorf("the consumer program: %v %q", err, run)
	}
}

// modulePath reads the module directive of a go.mod file.
func modulePath(t *testing.T, gomod string) string {
	t.Helper()
	f, err := os.Open(gomod)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "module "); ok {
			return strings.Trim(strings.TrimSpace(rest), `"`)
		}
	}
	t.Fatalf("%s has no module directive", gomod)
	return ""
}
