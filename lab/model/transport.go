package model

import (
	"io"
	"net/http"
)

// newTransport returns a fresh transport for one call, so no connection or
// state outlives Ask. It keeps the standard proxy settings from the
// environment (HTTP_PROXY, NO_PROXY).
func newTransport() *http.Transport {
	if t, ok := http.DefaultTransport.(*http.Transport); ok {
		return t.Clone()
	}
	return &http.Transport{Proxy: http.ProxyFromEnvironment}
}

// limitTransport caps every response body at max bytes.
type limitTransport struct {
	base http.RoundTripper
	max  int64
}

// RoundTrip sends the request with the base transport and wraps the body.
func (t limitTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	resp.Body = &limitedBody{rc: resp.Body, left: t.max}
	return resp, nil
}

// limitedBody reads at most left bytes, then fails with errTooLarge if the
// body goes on. Unlike io.LimitReader it does not pretend a cut body ended.
type limitedBody struct {
	rc   io.ReadCloser
	left int64
}

func (b *limitedBody) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	if b.left <= 0 {
		var one [1]byte
		n, err := b.rc.Read(one[:])
		if n == 0 {
			return 0, err // io.EOF, another error, or nothing yet
		}
		return 0, errTooLarge
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.rc.Read(p)
	b.left -= int64(n)
	return n, err
}

func (b *limitedBody) Close() error { return b.rc.Close() }
