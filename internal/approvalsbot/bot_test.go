package approvalsbot

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/sfn"
)

// TestStepFunctionsOpensAtMostWorkersConnections: more SendTaskSuccess
// calls at once than Workers share Workers connections; the others wait
// for one and all succeed.
func TestStepFunctionsOpensAtMostWorkersConnections(t *testing.T) {
	t.Parallel()
	const workers, calls = 2, 6
	var mu sync.Mutex
	open, most, served := 0, 0, 0
	arrived := make(chan struct{}, calls)
	release := make(chan struct{})
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		arrived <- struct{}{}
		<-release
		mu.Lock()
		served++
		mu.Unlock()
		w.Header().Set("Content-Type", "application/x-amz-json-1.0")
		_, _ = w.Write([]byte(`{}`))
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		mu.Lock()
		defer mu.Unlock()
		switch s {
		case http.StateNew:
			open++
			most = max(most, open)
		case http.StateClosed, http.StateHijacked:
			open--
		}
	}
	srv.Start()
	defer srv.Close()

	awsCfg, err := awsconfig.LoadDefaultConfig(t.Context(), awsconfig.WithRegion("us-east-1"),
		awsconfig.WithCredentialsProvider(credentials.NewStaticCredentialsProvider("local", "local", "")))
	if err != nil {
		t.Fatal(err)
	}
	client := Config{Workers: workers, SFNEndpoint: srv.URL}.stepFunctions(awsCfg)

	errs := make(chan error, calls)
	for range calls {
		go func() {
			_, err := client.SendTaskSuccess(context.Background(), &sfn.SendTaskSuccessInput{
				TaskToken: aws.String("token"), Output: aws.String("{}"),
			})
			errs <- err
		}()
	}
	for range workers {
		<-arrived // as many calls as connections reach the server
	}
	close(release) // then every call is answered, on those connections
	for range calls {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if most > workers || served != calls {
		t.Errorf("%d connections open at once and %d calls served; want at most %d connections and %d calls", most, served, workers, calls)
	}
}
