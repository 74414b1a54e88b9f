// Package model is the model step of lesson 1: after the scripted run, `lab run`
// asks a language model one short question through an OpenAI-compatible chat
// completions API. When no model answers, for whatever reason, the step shows a
// recorded sample answer instead and says why, so the lesson never stalls on a
// missing or broken model service.
package model

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"unicode"
	"unicode/utf8"

	openai "github.com/sashabaranov/go-openai"
)

// MaxReplyBytes bounds how much of any reply body is read, so a broken or
// hostile service cannot make the step use unbounded memory.
const MaxReplyBytes = 1 << 20

// maxReason is the longest Reason, in characters, that Ask returns.
const maxReason = 120

// Answer is the result of the model step.
type Answer struct {
	// Text is the model's answer, or the recorded sample when Recorded is true.
	Text string
	// Recorded is true when no model answered and Text is the recorded sample.
	Recorded bool
	// Reason says, on one short line, why no model answered. It is empty when
	// Recorded is false.
	Reason string
}

var (
	errNoChoices   = errors.New("no answer in the reply")
	errEmptyAnswer = errors.New("the model's answer was empty")
	errTooLarge    = fmt.Errorf("the reply is larger than %d bytes", MaxReplyBytes)
	errTimedOut    = errors.New("model call timed out")
)

// Prompt is what the model step asks: a lesson's question, the answer to show
// when no model answers, and how long the model's answer may be.
type Prompt struct {
	// Question is sent as one user message.
	Question string
	// Sample is the recorded answer shown when no model answers.
	Sample string
	// MaxTokens is sent as max_tokens; 0 sends no limit.
	MaxTokens int
}

// The files of a lesson's model folder that LoadPrompt reads.
const (
	QuestionFile  = "model/question.txt"
	SampleFile    = "model/sample.txt"
	MaxTokensFile = "model/max-tokens.txt"
)

// LoadPrompt reads a lesson's prompt with read, which returns a file of the
// lesson by its path inside the lesson's folder: the question, the recorded
// sample and max_tokens (a whole number) from QuestionFile, SampleFile and
// MaxTokensFile.
func LoadPrompt(read func(name string) ([]byte, error)) (Prompt, error) {
	var p Prompt
	for _, f := range []struct {
		name string
		to   *string
	}{{QuestionFile, &p.Question}, {SampleFile, &p.Sample}} {
		b, err := read(f.name)
		if err != nil {
			return Prompt{}, fmt.Errorf("reading the model prompt: %w", err)
		}
		if *f.to = strings.TrimSpace(string(b)); *f.to == "" {
			return Prompt{}, fmt.Errorf("reading the model prompt: %s is empty", f.name)
		}
	}
	b, err := read(MaxTokensFile)
	if err != nil {
		return Prompt{}, fmt.Errorf("reading the model prompt: %w", err)
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || n <= 0 {
		return Prompt{}, fmt.Errorf("reading the model prompt: %s must hold a whole number above 0, not %q", MaxTokensFile, strings.TrimSpace(string(b)))
	}
	p.MaxTokens = n
	return p, nil
}

// Ask sends p's question as one user message to the model service in cfg and
// returns its answer. Ask never fails: if the service cannot be reached, takes
// longer than cfg.Timeout, answers with an error status, or sends no usable
// answer, Ask returns p's sample with Recorded set and a short Reason.
func Ask(ctx context.Context, cfg Config, p Prompt) Answer {
	cfg = cfg.withDefaults()
	text, err := complete(ctx, cfg, p)
	if err != nil {
		return recorded(p, err)
	}
	return Answer{Text: text}
}

// AskFromEnv is the whole model step: it reads the configuration with
// ConfigFromEnv and asks p. A configuration that cannot be used is one more
// reason why no model answered, not a reason to stop: the answer is p's
// sample, and its Reason names the variable and what it accepts.
func AskFromEnv(ctx context.Context, getenv func(string) string, p Prompt) Answer {
	cfg, err := ConfigFromEnv(getenv)
	if err != nil {
		return recorded(p, err)
	}
	return Ask(ctx, cfg, p)
}

func recorded(p Prompt, why error) Answer {
	return Answer{Text: p.Sample, Recorded: true, Reason: shorten(why.Error())}
}

// complete makes the call. Its error, if any, is already the short reason.
func complete(ctx context.Context, cfg Config, p Prompt) (string, error) {
	callCtx, cancel := context.WithTimeoutCause(ctx, cfg.Timeout, errTimedOut)
	defer cancel()

	transport := newTransport()
	defer transport.CloseIdleConnections()

	oc := openai.DefaultConfig(cfg.Key)
	oc.BaseURL = cfg.BaseURL()
	oc.HTTPClient = &http.Client{Transport: limitTransport{base: transport, max: MaxReplyBytes}}
	client := openai.NewClientWithConfig(oc)

	resp, err := client.CreateChatCompletion(callCtx, openai.ChatCompletionRequest{
		Model:     cfg.Model,
		Messages:  []openai.ChatCompletionMessage{{Role: openai.ChatMessageRoleUser, Content: p.Question}},
		MaxTokens: p.MaxTokens,
	})
	switch {
	case err == nil:
	case context.Cause(callCtx) == errTimedOut:
		return "", fmt.Errorf("timeout after %s", cfg.Timeout)
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return "", errors.New("ran out of time before the model answered")
	case ctx.Err() != nil:
		return "", errors.New("cancelled before the model answered")
	default:
		return "", errors.New(reason(err, redact(cfg.URL)))
	}
	if len(resp.Choices) == 0 {
		return "", errNoChoices
	}
	text := strings.TrimSpace(resp.Choices[0].Message.Content)
	if text == "" {
		return "", errEmptyAnswer
	}
	return text, nil
}

// reason turns an error from go-openai or the HTTP client into a short
// human reason; Ask then makes it one line and caps its length.
// where is the service address as the student configured it.
func reason(err error, where string) string {
	var (
		apiErr *openai.APIError
		reqErr *openai.RequestError
		dnsErr *net.DNSError
		urlErr *url.Error
	)
	switch {
	case errors.Is(err, errTooLarge):
		return errTooLarge.Error()
	case errors.As(err, &apiErr):
		if msg := oneLine(apiErr.Message); msg != "" {
			return fmt.Sprintf("status %d: %s", apiErr.HTTPStatusCode, msg)
		}
		return fmt.Sprintf("status %d from the model service", apiErr.HTTPStatusCode)
	case errors.As(err, &reqErr):
		// The body is often an HTML error page: never show it.
		return fmt.Sprintf("status %d from the model service", reqErr.HTTPStatusCode)
	case errors.As(err, &dnsErr):
		if dnsErr.IsNotFound {
			return fmt.Sprintf("cannot reach %s: no such host", where)
		}
		return fmt.Sprintf("cannot reach %s: name lookup failed (%s)", where, dnsErr.Err)
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused by " + where
	case errors.As(err, &urlErr):
		return fmt.Sprintf("cannot reach %s: %v", where, innermost(urlErr.Err))
	}
	var (
		syntaxErr *json.SyntaxError
		typeErr   *json.UnmarshalTypeError
	)
	if errors.As(err, &syntaxErr) || errors.As(err, &typeErr) ||
		errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return "the model service's reply is not a chat completion"
	}
	return err.Error()
}

// innermost returns the deepest error in a chain of single wraps, which for
// network errors is the plain cause ("connection reset by peer").
func innermost(err error) error {
	for {
		next := errors.Unwrap(err)
		if next == nil {
			return err
		}
		err = next
	}
}

// redact removes a password from the address and any trailing slash.
func redact(raw string) string {
	raw = strings.TrimRight(raw, "/")
	if u, err := url.Parse(raw); err == nil {
		return u.Redacted()
	}
	return raw
}

// Lines renders an answer as the lines `lab run` prints, without line
// endings: when Recorded, first "Recorded sample: no model answered (REASON)."
// and then "model: TEXT"; otherwise only "model: TEXT". Line breaks and other
// control characters in the text and reason become single spaces.
func Lines(a Answer) []string {
	model := "model: " + oneLine(a.Text)
	if !a.Recorded {
		return []string{model}
	}
	head := "Recorded sample: no model answered."
	if r := shorten(a.Reason); r != "" {
		head = "Recorded sample: no model answered (" + r + ")."
	}
	return []string{head, model}
}

// shorten makes s one line of at most maxReason characters, ending in "..."
// when it was cut.
func shorten(s string) string {
	s = oneLine(s)
	if utf8.RuneCountInString(s) <= maxReason {
		return s
	}
	r := []rune(s)
	return strings.TrimSpace(string(r[:maxReason-3])) + "..."
}

// oneLine makes s printable on one line: invalid UTF-8 is replaced, and
// control characters and runs of white space become one space.
func oneLine(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, s)
	return strings.Join(strings.Fields(s), " ")
}
