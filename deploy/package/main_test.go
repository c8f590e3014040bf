package main

import (
	"archive/zip"
	"bytes"
	"context"
	"debug/elf"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sfnapprovals/approvals/workflow/definitions"
)

// Each Lambda zip holds one file, bootstrap: executable, a 64-bit arm64
// ELF, statically linked and stripped, with the zip's fixed time; the
// definitions are copied unedited.
func TestPackageBuildsTheLambdaZipsAndDefinitions(t *testing.T) {
	t.Parallel()
	out := t.TempDir()
	if err := buildAll(context.Background(), filepath.Join("..", ".."), out, false); err != nil {
		t.Fatal(err)
	}
	for _, l := range lambdas {
		t.Run(l.zip, func(t *testing.T) {
			zr, err := zip.OpenReader(filepath.Join(out, l.zip))
			if err != nil {
				t.Fatal(err)
			}
			defer zr.Close()
			if len(zr.File) != 1 || zr.File[0].Name != "bootstrap" {
				var names []string
				for _, f := range zr.File {
					names = append(names, f.Name)
				}
				t.Fatalf("the zip holds %q, want bootstrap alone", names)
			}
			f := zr.File[0]
			if mode := f.Mode(); !mode.IsRegular() || mode.Perm() != 0o755 {
				t.Errorf("bootstrap has mode %v, want an executable file (0755)", mode)
			}
			if !f.Modified.Equal(zipTime) {
				t.Errorf("bootstrap is dated %v, want the fixed %v", f.Modified, zipTime)
			}
			checkELF(t, f)
		})
	}
	for _, name := range definitions.Names() {
		got, err := os.ReadFile(filepath.Join(out, "definitions", name))
		want, _ := definitions.Load(name)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("definitions/%s differs from the shipped definition (%v)", name, err)
		}
	}
	if _, err := os.Stat(filepath.Join(out, "approvals-bot")); !os.IsNotExist(err) {
		t.Errorf("the bot was built without -bot: %v", err)
	}
}

func checkELF(t *testing.T, f *zip.File) {
	t.Helper()
	rc, err := f.Open()
	if err != nil {
		t.Fatal(err)
	}
	data, err := io.ReadAll(rc)
	rc.Close()
	if err != nil {
		t.Fatal(err)
	}
	bin, err := elf.NewFile(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("bootstrap is not an ELF file: %v", err)
	}
	defer bin.Close()
	if bin.Machine != elf.EM_AARCH64 || bin.Class != elf.ELFCLASS64 || bin.Type != elf.ET_EXEC {
		t.Errorf("bootstrap is %v %v %v, want an arm64 64-bit executable", bin.Machine, bin.Class, bin.Type)
	}
	if interp := bin.Section(".interp"); interp != nil {
		t.Error("bootstrap is dynamically linked (it has .interp); provided.al2023 wants a static binary")
	}
	for _, s := range bin.Sections {
		if s.Name == ".symtab" || strings.HasPrefix(s.Name, ".debug_") || strings.HasPrefix(s.Name, ".zdebug_") {
			t.Errorf("bootstrap has the section %s: not stripped (-ldflags='-s -w')", s.Name)
		}
	}
}

// The same binary always gives the same zip, byte for byte.
func TestZipIsReproducible(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	binary := filepath.Join(dir, "bootstrap")
	if err := os.WriteFile(binary, bytes.Repeat([]byte("\x7fELF not really"), 1000), 0o600); err != nil {
		t.Fatal(err)
	}
	var zips [][]byte
	for _, name := range []string{"a.zip", "b.zip"} {
		if err := writeZip(filepath.Join(dir, name), binary); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(binary, zipTime.AddDate(20, 0, 0), zipTime.AddDate(25, 0, 0)); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		zips = append(zips, b)
	}
	if !bytes.Equal(zips[0], zips[1]) {
		t.Error("two zips of the same binary differ")
	}
}

func TestRunRefusesArguments(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	if err := run(context.Background(), []string{"-out", t.TempDir(), "extra"}, &out); err == nil || !strings.Contains(err.Error(), "unexpected arguments") {
		t.Errorf("run = %v, want unexpected arguments refused", err)
	}
}
