package server

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"sync"

	"github.com/labstack/echo/v4"
	"github.com/ringside-eval/ringside"
	"github.com/ringside-eval/ringside/judge"
	"github.com/ringside-eval/ringside/leaderboard"
	"github.com/ringside-eval/ringside/rank"
	"github.com/ringside-eval/ringside/store"
)

// Leaderboard request bounds: the page asks for few rounds so that a
// refresh while judges vote stays quick; the downloads may ask for more.
const (
	defaultPageRounds = 200
	maxRounds         = 5000
	// leaderboardCacheSize bounds the cached answers (slicings × rounds ×
	// leak settings); the page uses three or four of them.
	leaderboardCacheSize = 16
)

// LeaderboardReport is the answer of GET /api/leaderboard: the
// leaderboard JSON of docs/formats.md (with perf fields per model and,
// with ?by=, slices) plus the rules judges' pass statistics keyed by judge label, and the judging
// dimensions configured, so the page can offer them even before anyone
// voted on one.
type LeaderboardReport struct {
	*rank.Leaderboard
	Pass       map[string][]judge.PassStats `json:"pass,omitempty"`
	Votes      int64                        `json:"votes"`
	Dimensions []string                     `json:"dimensions"`
}

// leaderboardQuery is what makes two leaderboards differ, besides the data.
type leaderboardQuery struct {
	by           string
	rounds       int
	includeLeaks bool
}

type cachedBoard struct {
	stamp  store.Stamp
	report *LeaderboardReport
	body   []byte // the report as JSON, served as is
}

// leaderboardCache keeps the last leaderboard of each query with the data
// stamp it was computed at: a bootstrap takes a noticeable fraction of a
// second, and every viewer refreshes on every vote. Computations are
// serialised, so a burst of refreshes after a vote computes once.
type leaderboardCache struct {
	compute sync.Mutex
	mu      sync.Mutex
	boards  map[leaderboardQuery]*cachedBoard
	// data is what the boards were last computed from; only a holder of
	// compute touches it.
	data *boardData
}

// boardData is what every leaderboard query is computed from. It is read
// once per data stamp: a page refresh asks for several slicings, and
// reading every vote is most of the work of each (seconds for a million
// votes).
type boardData struct {
	stamp   store.Stamp
	battles *rank.Battles
	perf    *rank.PerfCollector
	pass    map[string][]judge.PassStats
}

// dataAt returns the data read at stamp, reading it with load when the
// cached data is older. The caller holds compute.
func (lc *leaderboardCache) dataAt(ctx context.Context, stamp store.Stamp,
	load func(context.Context) (*boardData, error)) (*boardData, error) {
	if lc.data != nil && lc.data.stamp == stamp {
		return lc.data, nil
	}
	d, err := load(ctx)
	if err != nil {
		return nil, err
	}
	d.stamp = stamp
	lc.data = d
	return d, nil
}

func (s *Server) registerLeaderboardRoutes(g *echo.Group) {
	g.GET("/leaderboard", s.handleLeaderboard)
	g.GET("/battles.jsonl", s.handleBattlesDownload)
}

// handleLeaderboard is GET /api/leaderboard?by=&bootstrap=&include_leaks=&format=:
// the leaderboard of every vote. by is one of rank.SliceBy; bootstrap the
// rounds (default 200); format json (default) or, as a download, csv, md
// or table. EINVALID for a bad parameter.
func (s *Server) handleLeaderboard(c echo.Context) error {
	q, err := s.parseLeaderboardQuery(c)
	if err != nil {
		return err
	}
	format := c.QueryParam("format")
	if format != "" && format != "json" && !slices.Contains(rank.Formats, format) {
		return ringside.FieldError("format", "%q is not one of json, csv, md, table", format)
	}
	board, err := s.leaderboard(c.Request().Context(), q)
	if err != nil {
		return err
	}
	h := c.Response().Header()
	h.Set("Cache-Control", "no-cache")
	if c.QueryParam("download") != "" || (format != "" && format != "json") {
		ext := map[string]string{"": "json", "json": "json", "csv": "csv", "md": "md", "table": "txt"}[format]
		h.Set("Content-Disposition", `attachment; filename="leaderboard.`+ext+`"`)
	}
	switch format {
	case "", "json":
		return c.Blob(http.StatusOK, echo.MIMEApplicationJSONCharsetUTF8, board.body)
	case "csv":
		h.Set(echo.HeaderContentType, "text/csv; charset=utf-8")
	case "md":
		h.Set(echo.HeaderContentType, "text/markdown; charset=utf-8")
	default:
		h.Set(echo.HeaderContentType, echo.MIMETextPlainCharsetUTF8)
	}
	var buf bytes.Buffer
	if err := board.report.Leaderboard.Write(&buf, format); err != nil {
		return err
	}
	return c.Blob(http.StatusOK, h.Get(echo.HeaderContentType), buf.Bytes())
}

// handleBattlesDownload is GET /api/battles.jsonl: every vote as a line of
// the battle format (docs/formats.md), streamed.
func (s *Server) handleBattlesDownload(c echo.Context) error {
	h := c.Response().Header()
	h.Set(echo.HeaderContentType, "application/x-ndjson")
	h.Set("Content-Disposition", `attachment; filename="battles.jsonl"`)
	h.Set("Cache-Control", "no-cache")
	c.Response().WriteHeader(http.StatusOK)
	// Past this point the status is sent: a failure can only cut the file
	// short, so it is logged.
	if err := writeBattles(c.Request().Context(), s.DB, c.Response()); err != nil {
		s.Logger.Error("battles download", "err", err)
	}
	return nil
}

func (s *Server) parseLeaderboardQuery(c echo.Context) (leaderboardQuery, error) {
	q := leaderboardQuery{by: c.QueryParam("by"), rounds: defaultPageRounds, includeLeaks: s.Config.Rank.IncludeIdentityLeaks}
	if q.by == "overall" {
		q.by = ""
	}
	if q.by != "" && !slices.Contains(rank.SliceBy, q.by) {
		return q, ringside.FieldError("by", "%q is not one of overall, category, kind, judge, judge_kind, tag, dimension", q.by)
	}
	if v := c.QueryParam("bootstrap"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 || n > maxRounds {
			return q, ringside.FieldError("bootstrap", "must be a whole number from 0 to %d", maxRounds)
		}
		q.rounds = n
	}
	if v := c.QueryParam("include_leaks"); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return q, ringside.FieldError("include_leaks", "must be true or false")
		}
		q.includeLeaks = b
	}
	return q, nil
}

// leaderboard returns the cached leaderboard of q when the data has not
// changed since it was computed, or computes it.
func (s *Server) leaderboard(ctx context.Context, q leaderboardQuery) (*cachedBoard, error) {
	stamp, err := s.DB.DataStamp(ctx)
	if err != nil {
		return nil, err
	}
	lc := &s.boards
	if b := lc.get(q, stamp); b != nil {
		return b, nil
	}
	lc.compute.Lock()
	defer lc.compute.Unlock()
	if b := lc.get(q, stamp); b != nil { // computed while this one waited
		return b, nil
	}
	data, err := lc.dataAt(ctx, stamp, s.loadBoardData)
	if err != nil {
		return nil, err
	}
	rep, err := s.computeLeaderboard(q, data)
	if err != nil {
		return nil, err
	}
	rep.Votes = stamp.Votes
	body, err := json.Marshal(rep)
	if err != nil {
		return nil, err
	}
	b := &cachedBoard{stamp: stamp, report: rep, body: body}
	lc.put(q, b)
	return b, nil
}

func (lc *leaderboardCache) get(q leaderboardQuery, stamp store.Stamp) *cachedBoard {
	lc.mu.Lock()
	defer lc.mu.Unlock()
	if b := lc.boards[q]; b != nil && b.stamp == stamp {
		return b
	}
	return nil
}

func (lc *leaderboardCache) put(q leaderboardQuery, b *cachedBoard) {
	lc.mu.Lock()
	defer lc.mu.Unlock()
	if lc.boards == nil {
		lc.boards = map[leaderboardQuery]*cachedBoard{}
	}
	// Stale entries go first; then any, when the bound is reached by many
	// different queries (a client trying every round count).
	for k, old := range lc.boards {
		if old.stamp != b.stamp || len(lc.boards) >= leaderboardCacheSize {
			delete(lc.boards, k)
		}
	}
	lc.boards[q] = b
}

// loadBoardData reads every vote, the measurements and the pass statistics.
func (s *Server) loadBoardData(ctx context.Context) (*boardData, error) {
	bs, err := leaderboard.LoadBattles(ctx, s.DB, "", false)
	if err != nil {
		return nil, err
	}
	perf, err := leaderboard.LoadPerf(ctx, s.DB, "")
	if err != nil {
		return nil, err
	}
	pass, err := leaderboard.LoadPassStats(ctx, s.DB, "")
	if err != nil {
		return nil, err
	}
	return &boardData{battles: bs, perf: perf, pass: pass}, nil
}

// computeLeaderboard ranks every vote with the configured seed and anchor,
// adds the measured performance to the whole board and to each slice, and
// the pass statistics.
func (s *Server) computeLeaderboard(q leaderboardQuery, data *boardData) (*LeaderboardReport, error) {
	opts := rank.Options{Rounds: q.rounds, By: q.by, Matrix: true, IncludeIdentityLeaks: q.includeLeaks}
	if s.Config.Rank.Seed > 0 {
		opts.Seed = uint64(s.Config.Rank.Seed)
	}
	if s.Config.Rank.Anchor != "" {
		a, err := rank.ParseAnchor(s.Config.Rank.Anchor)
		if err != nil {
			return nil, err
		}
		opts.Anchor = a
	}
	// Rank reads the battles without changing them, so one read serves
	// every query at this stamp.
	lb, err := rank.Rank(data.battles, opts)
	if err != nil {
		return nil, err
	}
	lb.SetPerf(data.perf.Result(lb.BattleCounts()))
	// A slice's models are shown with their overall measurements: the
	// generations are the same whichever way the votes are cut.
	for _, sl := range lb.Slices {
		sl.SetPerf(data.perf.Result(sl.BattleCounts()))
	}
	dims := s.Config.Dimensions
	if dims == nil {
		dims = []string{}
	}
	return &LeaderboardReport{Leaderboard: lb, Pass: data.pass, Dimensions: dims}, nil
}
