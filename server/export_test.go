package server

// JudgeSockets reports how many judges' websockets are open.
func JudgeSockets(s *Server) int { return s.sockets.connections() }

// OnJudgeSocketEnd makes fn be called after each judge's websocket ends.
func OnJudgeSocketEnd(s *Server, fn func()) {
	s.sockets.mu.Lock()
	defer s.sockets.mu.Unlock()
	s.sockets.untracked = fn
}
