package judging

import (
	"context"

	"github.com/ringside-eval/ringside"
	"github.com/ringside-eval/ringside/config"
)

// correctable reports whether votes can be corrected under the reveal
// policy. A correction is a vote, and nothing before a vote may name a
// model: under after_vote the models are shown with the acknowledgement,
// so a change made after it could follow the names rather than the
// answers. Only a judge who has not seen the models may change their mind.
func (s *session) correctable() bool {
	return s.e.cfg.Reveal != config.RevealAfterVote
}

// correct answers a Vote with Correction set: it replaces the judge's last
// vote, while they have not taken another battle since. The replaced vote
// stays in the record (store.GroupWriter.CorrectVote); progress does not
// move, since the judge still cast one vote on the battle.
func (s *session) correct(ctx context.Context, in *VoteRequest) {
	if !s.correctable() {
		s.sendFn(func(c Conn) {
			c.Error(ringside.ECONFLICT, "the models were shown with your vote, so it can no longer be changed", in.BattleID)
		})
		return
	}
	if s.changeable == "" || s.changeable != in.BattleID {
		s.sendFn(func(c Conn) {
			c.Error(ringside.ECONFLICT, "only your last vote can be changed, before you take the next battle", in.BattleID)
		})
		return
	}
	v, err := s.parseVote(in)
	if err == nil {
		_, err = s.e.writes.CorrectVote(ctx, v)
	}
	if err != nil {
		s.sendError(err, in.BattleID)
		return
	}
	s.e.onVote()
	s.sendFn(func(c Conn) {
		c.Voted(Voted{BattleID: v.BattleID, Winner: v.Winner, Dimensions: v.Dimensions,
			Progress: s.progress(), Changeable: true, Corrected: true})
	})
}
