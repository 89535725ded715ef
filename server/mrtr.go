package server

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/mcp"
)

// Multi round-trip requests (MRTR, 2026-07-28): a modern request that
// needs input ends its round with an input_required result holding the
// questions and an opaque requestState; the client retries with the
// answers and the state, and the handler runs again.
//
// The requestState carries the answers of earlier rounds, bound to the
// request (method, name or URI, arguments), to the principal when
// Options.Principal is set, and to an expiry, and sealed with
// HMAC-SHA256. Any server instance holding one of the keys can continue a
// round another instance began; tampered or expired state is refused.

// ErrInputRequired is matched (errors.Is) by the error that Request.Ask
// returns to end a modern round. Handlers return it as it is.
var ErrInputRequired = errors.New("mcp server: input required from the client")

// inputRequired is the error that ends a round.
type inputRequired struct{ questions []*Question }

func (e *inputRequired) Error() string        { return ErrInputRequired.Error() }
func (e *inputRequired) Is(target error) bool { return target == ErrInputRequired }

// Defaults of the request state options.
const (
	// DefaultMaxRequestStateBytes bounds the requestState a server
	// accepts or produces.
	DefaultMaxRequestStateBytes = 1 << 20
	// DefaultRequestStateTTL is how long a requestState stays valid.
	DefaultRequestStateTTL = 15 * time.Minute
)

// round is the input of one modern request run: answers from the state
// and from inputResponses, and the answers the handler used. A request
// makes one only when it has answers or asks (most do neither); until
// then Request.mrtr holds the params alone.
type round struct {
	params  any    // what startRound was given (see boundTo)
	binding []byte // nil until needed (see bind)
	answers map[string]json.RawMessage
	used    map[string]json.RawMessage // nil until an answer is used
	asked   int                        // questions asked without a key so far
}

// canAsk reports whether the request may ask for input in modern rounds
// (startRound ran).
func (r *Request) canAsk() bool { return r.mrtr != nil }

// roundState returns the request's round, nil when it has none yet.
func (r *Request) roundState() *round {
	rd, _ := r.mrtr.(*round)
	return rd
}

// ensureRound returns the request's round, making it if the request may
// ask; nil when it may not.
func (r *Request) ensureRound() *round {
	switch m := r.mrtr.(type) {
	case nil:
		return nil
	case *round:
		return m
	default:
		rd := &round{params: m}
		r.mrtr = rd
		return rd
	}
}

// boundParams returns the params startRound was given.
func (r *Request) boundParams() any {
	if rd := r.roundState(); rd != nil {
		return rd.params
	}
	return r.mrtr
}

// bind returns the binding of r's round, computing it the first time: the
// request's method, and the name and arguments of the params startRound
// was given.
func (s *Server) bind(ctx context.Context, r *Request) ([]byte, error) {
	rd := r.roundState()
	if rd != nil && rd.binding != nil {
		return rd.binding, nil
	}
	name, args := boundTo(r.boundParams())
	b, err := s.bindRequest(ctx, r.Method, name, args)
	if err != nil {
		return nil, err
	}
	if rd != nil {
		rd.binding = b
	}
	return b, nil
}

// stateKeys signs and verifies request state.
type stateKeys struct {
	keys [][]byte // keys[0] signs; all verify
	ttl  time.Duration
	max  int       // bytes of requestState accepted or produced
	ring ringCache // scale-out: the store's keys replace keys when set (mrtr_ring.go)
}

func newStateKeys(keys [][]byte, ttl time.Duration, max int) *stateKeys {
	if len(keys) == 0 {
		k := make([]byte, 32)
		rand.Read(k)
		keys = [][]byte{k}
	}
	return &stateKeys{keys: keys, ttl: orDefault(ttl, DefaultRequestStateTTL), max: orDefault(max, DefaultMaxRequestStateBytes)}
}

func keyID(k []byte) string {
	sum := sha256.Sum256(k)
	return hex.EncodeToString(sum[:4])
}

// sealedState is the signed part of a requestState.
type sealedState struct {
	Version int                        `json:"v"`
	KeyID   string                     `json:"k"`
	Binding []byte                     `json:"b"`
	Expires int64                      `json:"x"`
	Answers map[string]json.RawMessage `json:"a,omitempty"`
}

func (sk *stateKeys) mac(key, payload []byte) []byte {
	m := hmac.New(sha256.New, key)
	m.Write(payload)
	return m.Sum(nil)
}

// seal produces the requestState carrying answers for the request bound by
// binding.
func (sk *stateKeys) seal(ctx context.Context, binding []byte, answers map[string]json.RawMessage) (string, error) {
	keys, err := sk.current(ctx, "")
	if err != nil {
		return "", err
	}
	payload, err := json.Marshal(sealedState{
		Version: 1, KeyID: keyID(keys[0]), Binding: binding,
		Expires: time.Now().Add(sk.ttl).Unix(), Answers: answers,
	})
	if err != nil {
		return "", err
	}
	state := base64.RawURLEncoding.EncodeToString(payload) + "." + base64.RawURLEncoding.EncodeToString(sk.mac(keys[0], payload))
	if len(state) > sk.max {
		return "", fmt.Errorf("mcp server: request state of %d bytes exceeds Options.MaxRequestStateBytes (%d)", len(state), sk.max)
	}
	return state, nil
}

var errBadState = jsonrpc.NewError(jsonrpc.CodeInvalidParams, "Invalid params: requestState is not valid for this request (tampered, expired, or from another request)")

// open verifies a requestState and returns the answers it carries.
func (sk *stateKeys) open(ctx context.Context, binding []byte, state string) (map[string]json.RawMessage, error) {
	if len(state) > sk.max {
		return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "Invalid params: requestState has %d bytes; the server accepts at most %d", len(state), sk.max)
	}
	p64, m64, ok := strings.Cut(state, ".")
	if !ok {
		return nil, errBadState
	}
	payload, err1 := base64.RawURLEncoding.DecodeString(p64)
	mac, err2 := base64.RawURLEncoding.DecodeString(m64)
	if err1 != nil || err2 != nil {
		return nil, errBadState
	}
	var st sealedState
	if err := json.Unmarshal(payload, &st); err != nil || st.Version != 1 {
		return nil, errBadState
	}
	keys, err := sk.current(ctx, st.KeyID)
	if err != nil {
		return nil, err
	}
	var key []byte
	for _, k := range keys {
		if keyID(k) == st.KeyID {
			key = k
			break
		}
	}
	if key == nil || !hmac.Equal(mac, sk.mac(key, payload)) {
		return nil, errBadState
	}
	if time.Now().Unix() > st.Expires || !bytes.Equal(st.Binding, binding) {
		return nil, errBadState
	}
	return st.Answers, nil
}

// bindRequest computes what a request state is bound to: the method, the
// name or URI, the arguments (canonicalized, so that a client may
// re-encode them), and the principal.
func (s *Server) bindRequest(ctx context.Context, method, name string, args json.RawMessage) ([]byte, error) {
	h := sha256.New()
	h.Write([]byte(method))
	h.Write([]byte{0})
	h.Write([]byte(name))
	h.Write([]byte{0})
	if len(args) > 0 {
		var v any
		if err := json.Unmarshal(args, &v); err != nil {
			return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "Invalid params: arguments: %v", err)
		}
		canon, _ := json.Marshal(v) // map keys come out sorted
		h.Write(canon)
	}
	h.Write([]byte{0})
	if s.opts.Principal != nil {
		h.Write([]byte(s.opts.Principal(ctx)))
	}
	return h.Sum(nil), nil
}

// boundTo returns what a request state is bound to besides the method:
// the name (or URI) and the arguments in p, the params of a request that
// may ask for input. They are read when the binding is needed, from the
// params the handler was given (which it must not change).
func boundTo(p any) (name string, args json.RawMessage) {
	switch p := p.(type) {
	case *mcp.CallToolParams:
		return p.Name, p.Arguments
	case *mcp.GetPromptParams:
		return p.Name, promptArgsJSON(p.Arguments)
	case *mcp.ReadResourceParams:
		return p.URI, nil
	}
	panic(fmt.Sprintf("mcp server: no request state binding for %T", p))
}

// startRound prepares a modern request that may ask for input: it opens
// the request state, if any, and gathers the answers.
func (s *Server) startRound(ctx context.Context, r *Request, p any, state string, responses mcp.InputResponses) error {
	if !r.IsModern() {
		return nil
	}
	r.mrtr = p
	if state == "" && !hasAnswer(responses) {
		return nil
	}
	rd := r.ensureRound()
	if state != "" {
		binding, err := s.bind(ctx, r)
		if err != nil {
			return err
		}
		prev, err := s.stateKeys.open(ctx, binding, state)
		if err != nil {
			return err
		}
		rd.answers = make(map[string]json.RawMessage, len(prev)+len(responses))
		for k, v := range prev {
			rd.answers[k] = v
		}
	}
	for k, v := range responses {
		if isNoAnswer(v) {
			continue
		}
		if rd.answers == nil {
			rd.answers = make(map[string]json.RawMessage, len(responses))
		}
		if _, done := rd.answers[k]; !done {
			rd.answers[k] = v
		}
	}
	return nil
}

// isNoAnswer reports whether an input response is absent (empty or null).
func isNoAnswer(v json.RawMessage) bool { return len(v) == 0 || string(v) == "null" }

// hasAnswer reports whether responses hold at least one answer.
func hasAnswer(responses mcp.InputResponses) bool {
	for _, v := range responses {
		if !isNoAnswer(v) {
			return true
		}
	}
	return false
}

// askModern answers questions from the round's answers, or ends the round.
func (r *Request) askModern(questions []*Question) error {
	if !r.canAsk() {
		return jsonrpc.Errorf(jsonrpc.CodeInternalError, "Internal error: %s cannot ask the client for input in revision %s", r.Method, r.Version)
	}
	rd := r.roundState()
	var missing []*Question
	for _, q := range questions {
		var raw json.RawMessage
		ok := false
		if rd != nil {
			raw, ok = rd.answers[q.Key]
		}
		if !ok {
			missing = append(missing, q)
			continue
		}
		if err := decodeAnswer(q, raw); err != nil {
			return err
		}
		if rd.used == nil {
			rd.used = make(map[string]json.RawMessage)
		}
		rd.used[q.Key] = raw
	}
	if len(missing) > 0 {
		return &inputRequired{questions: missing}
	}
	return nil
}

// decodeAnswer checks and decodes the client's answer to q.
func decodeAnswer(q *Question, raw json.RawMessage) error {
	bad := func(why string) error {
		return jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "Invalid params: inputResponses[%q] is not a valid %s result: %s", q.Key, q.Method, why)
	}
	if len(raw) == 0 || raw[0] != '{' {
		return bad("not an object")
	}
	if err := json.Unmarshal(raw, q.Result); err != nil {
		return bad(err.Error())
	}
	switch res := q.Result.(type) {
	case *mcp.ElicitResult:
		switch res.Action {
		case mcp.ElicitAccept, mcp.ElicitDecline, mcp.ElicitCancel:
		default:
			return bad(fmt.Sprintf("unknown action %q", res.Action))
		}
	case *mcp.CreateMessageResult:
		if res.Model == "" || res.Role == "" {
			return bad("role and model are required")
		}
	}
	return nil
}

// inputRequiredResult turns the end of a round into the result that asks
// the client for the missing answers.
func (s *Server) inputRequiredResult(ctx context.Context, r *Request, e *inputRequired) (any, error) {
	reqs := make(mcp.InputRequests, len(e.questions))
	for _, q := range e.questions {
		ir, err := mcp.NewInputRequest(q.Method, q.Params)
		if err != nil {
			return nil, fmt.Errorf("mcp server: encoding the question %q: %w", q.Key, err)
		}
		reqs[q.Key] = ir
	}
	binding, err := s.bind(ctx, r)
	if err != nil {
		return nil, err
	}
	var used map[string]json.RawMessage
	if rd := r.roundState(); rd != nil {
		used = rd.used
	}
	state, err := s.stateKeys.seal(ctx, binding, used)
	if err != nil {
		return nil, err
	}
	return &mcp.InputRequiredResult{InputRequests: reqs, RequestState: state, Meta: s.modernMeta}, nil
}
