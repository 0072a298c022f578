package registry

import (
	"bytes"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/accounts/abi/bind/v2"
)

var contracts = []struct {
	name string
	meta *bind.MetaData
}{
	{"SealRegistry", &SealRegistryMetaData},
	{"PlainERC721", &PlainERC721MetaData},
}

// The bindings embed an ABI and bytecode of their own; they must be the committed compiler output, or the
// Go code would deploy and call a contract other than the one the sources describe.
func TestBindingsMatchCompiledFiles(t *testing.T) {
	for _, c := range contracts {
		t.Run(c.name, func(t *testing.T) {
			abiFile := strings.TrimSpace(readFile(t, c.name+".abi"))
			if c.meta.ABI != abiFile {
				t.Errorf("bindings ABI differs from %s.abi: run go generate ./evm/registry", c.name)
			}
			bin := "0x" + strings.TrimSpace(readFile(t, c.name+".bin"))
			if c.meta.Bin != bin {
				t.Errorf("bindings bytecode differs from %s.bin: run go generate ./evm/registry", c.name)
			}
		})
	}
}

// TestCommittedBytecodeMatchesSources recompiles contracts/ with the pinned compiler into a temporary
// directory and compares every output file with the committed one. It may skip only when npm is absent,
// and never in CI.
func TestCommittedBytecodeMatchesSources(t *testing.T) {
	for _, tool := range []string{"npm", "node"} {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("CI") != "" {
				t.Fatalf("%s is required in CI to check the committed bytecode: %v", tool, err)
			}
			t.Skipf("%s not installed; cannot recompile the contracts", tool)
		}
	}
	src, err := filepath.Abs(filepath.Join("..", "..", "contracts"))
	if err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	copyTree(t, src, work)

	run(t, work, "npm", "ci", "--no-audit", "--no-fund")
	out := filepath.Join(work, "out")
	run(t, work, "node", "compile.js", out)

	entries, err := os.ReadDir(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 3*len(contracts) {
		t.Errorf("compile.js wrote %d files, want %d", len(entries), 3*len(contracts))
	}
	for _, c := range contracts {
		for _, ext := range []string{".abi", ".bin", ".bin-runtime"} {
			name := c.name + ext
			fresh, err := os.ReadFile(filepath.Join(out, name))
			if err != nil {
				t.Errorf("compile.js did not write %s: %v", name, err)
				continue
			}
			if !bytes.Equal(fresh, []byte(readFile(t, name))) {
				t.Errorf("committed %s differs from the sources' compiler output: run go generate ./evm/registry", name)
			}
		}
	}
}

func readFile(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// copyTree copies the contract sources and build files, leaving out any node_modules a developer has.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == "node_modules" {
			return filepath.SkipDir
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

func run(t *testing.T, dir, name string, args ...string) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
}
