package chat

import (
	"context"
	"fmt"
	"sync"

	"github.com/sfnapprovals/approvals/workflow"
)

// TokenSource gives the bot token the Lambdas post with.
type TokenSource interface {
	// Token returns the bot token: a cached one, or with refresh the one
	// kept where it is stored now (a rotated token). Errors never hold a
	// token.
	Token(ctx context.Context, refresh bool) (string, error)
}

// StaticToken is a TokenSource for a token given in the environment:
// refreshing it gives the same token.
type StaticToken string

// Token returns the token.
func (t StaticToken) Token(context.Context, bool) (string, error) { return string(t), nil }

// TokenPoster posts like a Poster with the token of a TokenSource. When
// Slack refuses the token (invalid_auth, token_revoked), it reads the
// token again once and, if it changed, repeats the call with the new one;
// a refused call changed nothing in Slack, so repeating it posts nothing
// twice. It is safe for concurrent use.
type TokenPoster struct {
	source    TokenSource
	newPoster func(token string) *Poster

	mu     sync.Mutex
	token  string
	poster *Poster
}

// NewTokenPoster reads the token from source (at a Lambda's cold start)
// and returns a TokenPoster whose Posters newPoster builds for a token.
// The error is source's.
func NewTokenPoster(ctx context.Context, source TokenSource, newPoster func(token string) *Poster) (*TokenPoster, error) {
	token, err := source.Token(ctx, false)
	if err != nil {
		return nil, err
	}
	return &TokenPoster{source: source, newPoster: newPoster, token: token, poster: newPoster(token)}, nil
}

// PostRequest is Poster.PostRequest.
func (p *TokenPoster) PostRequest(ctx context.Context, a workflow.Approval) (channel, ts string, err error) {
	err = p.do(ctx, func(poster *Poster) error {
		channel, ts, err = poster.PostRequest(ctx, a)
		return err
	})
	return channel, ts, err
}

// UpdateMessage is Poster.UpdateMessage.
func (p *TokenPoster) UpdateMessage(ctx context.Context, a workflow.Approval) error {
	return p.do(ctx, func(poster *Poster) error { return poster.UpdateMessage(ctx, a) })
}

// Permalink is Poster.Permalink.
func (p *TokenPoster) Permalink(ctx context.Context, channel, ts string) (link string, err error) {
	err = p.do(ctx, func(poster *Poster) error {
		link, err = poster.Permalink(ctx, channel, ts)
		return err
	})
	return link, err
}

// PostReply is Poster.PostReply.
func (p *TokenPoster) PostReply(ctx context.Context, a workflow.Approval) error {
	return p.do(ctx, func(poster *Poster) error { return poster.PostReply(ctx, a) })
}

// PostRequesterNotice is Poster.PostRequesterNotice.
func (p *TokenPoster) PostRequesterNotice(ctx context.Context, a workflow.Approval) error {
	return p.do(ctx, func(poster *Poster) error { return poster.PostRequesterNotice(ctx, a) })
}

// do runs call with the current Poster and, when Slack refuses its token,
// once more with a token read again, if that one is new.
func (p *TokenPoster) do(ctx context.Context, call func(*Poster) error) error {
	p.mu.Lock()
	poster, used := p.poster, p.token
	p.mu.Unlock()
	err := call(poster)
	if code := Code(err); code != "invalid_auth" && code != "token_revoked" {
		return err
	}
	fresh, rerr := p.source.Token(ctx, true)
	if rerr != nil {
		return fmt.Errorf("%w; reading the bot token again failed: %v", err, rerr)
	}
	if fresh == used {
		return err // the stored token is the one Slack refuses
	}
	p.mu.Lock()
	if p.token == used {
		p.token, p.poster = fresh, p.newPoster(fresh)
	}
	poster = p.poster
	p.mu.Unlock()
	return call(poster)
}
