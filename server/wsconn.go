package server

import (
	"errors"
	"io"
	"sync"
	"time"

	"github.com/gorilla/websocket"
	"github.com/ringside-eval/ringside/config"
	"golang.org/x/time/rate"
)

// conn is one judge's websocket, after STYLE #15: one reader (read limit,
// pong deadline) and one writer fed by a bounded channel (pings, write
// deadline), closed once. Nothing ever blocks on a judge: a frame that does
// not fit in the send buffer closes the connection, and the judge reconnects
// and resumes where the server still is.
type conn struct {
	ws      *websocket.Conn
	send    chan []byte
	closed  chan struct{}
	once    sync.Once
	limiter *rate.Limiter

	// Why the connection is closing, for the close frame the writer sends.
	closeCode   int
	closeReason string
	// peerClosed is set when the close handshake or the socket is already
	// gone, so the writer only tears down.
	peerClosed bool

	ping, pongWait, writeWait time.Duration
	softLimit                 int64
}

func newConn(ws *websocket.Conn, cfg config.Judging) *conn {
	return &conn{
		ws: ws, send: make(chan []byte, cfg.SendBuffer), closed: make(chan struct{}),
		limiter: rate.NewLimiter(rate.Limit(cfg.MessagesPerSecond), cfg.MessageBurst),
		ping:    cfg.PingInterval, pongWait: cfg.PongTimeout, writeWait: cfg.WriteTimeout,
		softLimit: int64(cfg.MaxMessageBytes),
	}
}

// hardLimit is where gorilla gives up on a frame and closes with 1009:
// reading that far is the price of telling the judge, with an error frame,
// that a merely oversized frame was dropped.
func (c *conn) hardLimit() int64 { return 16 * c.softLimit }

// enqueue queues a frame for the writer. It never blocks: when the buffer is
// full the judge is too slow, and is disconnected. It reports whether the
// frame was queued.
func (c *conn) enqueue(frame []byte) bool {
	select {
	case <-c.closed:
		return false
	default:
	}
	select {
	case c.send <- frame:
		return true
	default:
		c.close(closeTooSlow, "too slow: reconnect to resume")
		return false
	}
}

// close starts closing the connection with a close frame carrying code and
// reason; only the first call counts.
func (c *conn) close(code int, reason string) {
	c.once.Do(func() {
		c.closeCode, c.closeReason = code, reason
		close(c.closed)
	})
}

// closeSilently closes without a close frame, for a peer that is gone or a
// connection gorilla already answered with one.
func (c *conn) closeSilently() {
	c.once.Do(func() {
		c.peerClosed = true
		close(c.closed)
	})
}

// writeLoop is the only writer of the socket (gorilla allows one): frames,
// pings and the final close frame.
func (c *conn) writeLoop() {
	ticker := time.NewTicker(c.ping)
	defer func() {
		ticker.Stop()
		c.ws.Close()
	}()
	for {
		select {
		case frame := <-c.send:
			c.ws.SetWriteDeadline(time.Now().Add(c.writeWait))
			if err := c.ws.WriteMessage(websocket.TextMessage, frame); err != nil {
				c.closeSilently()
				return
			}
		case <-ticker.C:
			if err := c.ws.WriteControl(websocket.PingMessage, nil, time.Now().Add(c.writeWait)); err != nil {
				c.closeSilently()
				return
			}
		case <-c.closed:
			if !c.peerClosed {
				c.flush()
				msg := websocket.FormatCloseMessage(c.closeCode, c.closeReason)
				_ = c.ws.WriteControl(websocket.CloseMessage, msg, time.Now().Add(c.writeWait))
			}
			return
		}
	}
}

// flush writes what is already queued, so an error frame sent just before
// closing reaches the judge, within one write deadline overall.
func (c *conn) flush() {
	deadline := time.Now().Add(c.writeWait)
	for {
		select {
		case frame := <-c.send:
			c.ws.SetWriteDeadline(deadline)
			if c.ws.WriteMessage(websocket.TextMessage, frame) != nil {
				return
			}
		default:
			return
		}
	}
}

// errTooLarge marks a frame above the soft limit, already drained.
var errTooLarge = errors.New("frame too large")

// read returns the next text or binary frame. A frame above the soft limit
// is drained and reported as errTooLarge, keeping the connection usable;
// any other error ends the connection.
func (c *conn) read() (int, []byte, error) {
	mt, r, err := c.ws.NextReader()
	if err != nil {
		return 0, nil, err
	}
	// Any frame shows the judge is there, as a pong does.
	c.ws.SetReadDeadline(time.Now().Add(c.pongWait))
	data, err := io.ReadAll(io.LimitReader(r, c.softLimit+1))
	if err != nil {
		return 0, nil, err
	}
	if int64(len(data)) > c.softLimit {
		if _, err := io.Copy(io.Discard, r); err != nil {
			return 0, nil, err
		}
		return mt, nil, errTooLarge
	}
	return mt, data, nil
}

// prepare sets the limits and the pong handler before the first read.
func (c *conn) prepare() {
	c.ws.SetReadLimit(c.hardLimit())
	c.ws.SetReadDeadline(time.Now().Add(c.pongWait))
	c.ws.SetPongHandler(func(string) error {
		c.ws.SetReadDeadline(time.Now().Add(c.pongWait))
		return nil
	})
}

// linger reads and discards what the peer still sends, for at most d, so
// that closing does not reset the connection under data the peer is
// writing.
func (c *conn) linger(d time.Duration) {
	nc := c.ws.UnderlyingConn()
	nc.SetReadDeadline(time.Now().Add(d))
	_, _ = io.Copy(io.Discard, nc)
}
