package awslocal

import "testing"

func TestIsLoopback(t *testing.T) {
	t.Parallel()
	tests := []struct {
		endpoint string
		want     bool
	}{
		{"http://127.0.0.1:8000", true},
		{"http://localhost:8000", true},
		{"http://[::1]:8000", true},
		{"https://dynamodb.eu-west-1.amazonaws.com", false},
		{"http://10.0.0.5:8000", false},
		{"", false},
		{"::not a url", false},
	}
	for _, tt := range tests {
		if got := IsLoopback(tt.endpoint); got != tt.want {
			t.Errorf("IsLoopback(%q) = %v, want %v", tt.endpoint, got, tt.want)
		}
	}
}
