package dynamolocal

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestFindDir(t *testing.T) {
	root := t.TempDir()
	older := fakeInstall(t, root, "dynamodb_local_2024-01-01")
	newer := fakeInstall(t, root, "dynamodb_local_2026-05-28")
	deep := filepath.Join(root, "workflow", "dynamo")
	empty := t.TempDir()
	mkdir(t, deep)

	tests := []struct {
		name, dir, start, want string
		wantErr                bool
	}{
		{name: "explicit dir", dir: older, start: empty, want: older},
		{name: "walk up to the newest install", start: deep, want: newer},
		{name: "install at the start", start: root, want: newer},
		{name: "explicit dir without jar", dir: empty, start: deep, wantErr: true},
		{name: "nothing installed", start: empty, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := findDir(tt.dir, tt.start)
			if tt.wantErr {
				if !errors.Is(err, errNotFound) {
					t.Fatalf("findDir() error = %v, want %v", err, errNotFound)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("findDir() = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

func fakeInstall(t *testing.T, root, name string) string {
	t.Helper()
	dir := filepath.Join(root, toolsDir, name)
	mkdir(t, dir)
	if err := os.WriteFile(filepath.Join(dir, "DynamoDBLocal.jar"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func mkdir(t *testing.T, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
}

func mustGetwd(t *testing.T) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	return wd
}
