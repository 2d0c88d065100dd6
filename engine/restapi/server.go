package restapi

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// shutdownTimeout bounds how long Close waits for requests in flight (k6 waits 1 s).
const shutdownTimeout = time.Second

// Server serves the API on a listener until Close.
type Server struct {
	srv  *http.Server
	ln   net.Listener
	done chan struct{}
	err  error
	once sync.Once
}

// Listen binds addr ("host:port"). The CLI binds before it loads the script, so that an address
// in use fails at once (k6 exits with exitcode.CannotStartAPI).
func Listen(addr string) (net.Listener, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, &ListenError{Addr: addr, Err: err}
	}
	return ln, nil
}

// ListenError is a failure to bind the API's address.
type ListenError struct {
	Addr string
	Err  error
}

// Error implements error.
func (e *ListenError) Error() string { return "REST API on " + e.Addr + ": " + e.Err.Error() }

// Unwrap returns the listener's error.
func (e *ListenError) Unwrap() error { return e.Err }

// Serve starts serving c on ln in a goroutine the Server owns; Close stops it.
func Serve(ln net.Listener, c Controller, log *slog.Logger) *Server {
	s := &Server{
		srv:  &http.Server{Handler: Handler(c, log), ReadHeaderTimeout: 10 * time.Second},
		ln:   ln,
		done: make(chan struct{}),
	}
	go func() {
		defer close(s.done)
		if err := s.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.err = err
		}
	}()
	return s
}

// Addr is the address the server listens on.
func (s *Server) Addr() net.Addr { return s.ln.Addr() }

// Close stops the server, letting requests in flight finish for up to a second, and returns
// the error that ended serving, if any.
func (s *Server) Close() error {
	s.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
		defer cancel()
		if err := s.srv.Shutdown(ctx); err != nil {
			_ = s.srv.Close()
		}
		<-s.done
	})
	return s.err
}

// Handler is the API's routes (grafana/k6 api/v1/routes.go): a wrong method gets 405 with an
// empty body.
func Handler(c Controller, log *slog.Logger) http.Handler {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	h := &handlers{c: c, log: log}
	mux := http.NewServeMux()
	mux.HandleFunc("/v1/status", methods(map[string]http.HandlerFunc{
		http.MethodGet: h.getStatus, http.MethodPatch: h.patchStatus}))
	mux.HandleFunc("/v1/metrics", methods(map[string]http.HandlerFunc{http.MethodGet: h.getMetrics}))
	mux.HandleFunc("/v1/metrics/", methods(map[string]http.HandlerFunc{http.MethodGet: h.getMetric}))
	mux.HandleFunc("/v1/groups", methods(map[string]http.HandlerFunc{http.MethodGet: h.getGroups}))
	mux.HandleFunc("/v1/groups/", methods(map[string]http.HandlerFunc{http.MethodGet: h.getGroup}))
	mux.HandleFunc("/v1/setup", methods(map[string]http.HandlerFunc{
		http.MethodGet: h.getSetup, http.MethodPost: h.runSetup, http.MethodPut: h.putSetup}))
	mux.HandleFunc("/v1/teardown", methods(map[string]http.HandlerFunc{http.MethodPost: h.runTeardown}))
	return whenReady(c, mux)
}

// whenReady holds each request until c is ready (or the client gives up). The address is bound
// before the script loads, so that a busy one fails at once, but k6 starts its API only once
// the run exists: the first answer must already be true.
func whenReady(c Controller, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-c.Ready():
			next.ServeHTTP(w, r)
		case <-r.Context().Done():
		}
	})
}

func methods(m map[string]http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if f, ok := m[r.Method]; ok {
			f(w, r)
			return
		}
		w.WriteHeader(http.StatusMethodNotAllowed)
	}
}

type handlers struct {
	c   Controller
	log *slog.Logger
}

// apiError writes k6's error document (grafana/k6 api/v1/errors.go).
func apiError(w http.ResponseWriter, title, detail string, status int) {
	type errorDoc struct {
		Status string `json:"status,omitempty"`
		Title  string `json:"title,omitempty"`
		Detail string `json:"detail,omitempty"`
	}
	b, _ := json.Marshal(struct {
		Errors []errorDoc `json:"errors"`
	}{[]errorDoc{{Status: strconv.Itoa(status), Title: title, Detail: detail}}})
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

// writeJSON writes v, or k6's encoding error.
func writeJSON(w http.ResponseWriter, contentType string, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		apiError(w, "Encoding error", err.Error(), http.StatusInternalServerError)
		return
	}
	if contentType != "" {
		w.Header().Set("Content-Type", contentType)
	}
	_, _ = w.Write(b)
}

// readBody reads a request body, answering 400 with title when it cannot.
func readBody(w http.ResponseWriter, r *http.Request, title string) ([]byte, bool) {
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBody))
	if err != nil {
		apiError(w, title, err.Error(), http.StatusBadRequest)
		return nil, false
	}
	return body, true
}

// maxBody bounds request bodies (setup data is the largest).
const maxBody = 64 << 20
