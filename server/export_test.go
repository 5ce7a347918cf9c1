package server

import "time"

// JudgeSockets reports how many judges' websockets are open.
func JudgeSockets(s *Server) int { return s.sockets.connections() }

// OnJudgeSocketEnd makes fn be called after each judge's websocket ends.
func OnJudgeSocketEnd(s *Server, fn func()) {
	s.sockets.mu.Lock()
	defer s.sockets.mu.Unlock()
	s.sockets.untracked = fn
}

// WithEventPoll sets how often event streams poll the database.
func WithEventPoll(d time.Duration) Option {
	return func(o *options) { o.eventPoll = d }
}
