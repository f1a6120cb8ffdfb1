package responses

import "context"

type commitKey struct{}

// WithCommit returns a context for a model call whose model reports
// through Commit the moment it is about to spend money that cannot be
// taken back for this request (a reseller signing its upstream purchase).
// commit returns an error when the request was already given up: the
// model then spends nothing. Once commit returned nil, the caller owes the
// model its answer whatever its client does next.
func WithCommit(ctx context.Context, commit func() error) context.Context {
	return context.WithValue(ctx, commitKey{}, commit)
}

// Commit is called by a model before it spends money for the request of
// ctx; an error means the request was given up and nothing may be spent.
// Without WithCommit it returns nil.
func Commit(ctx context.Context) error {
	if f, _ := ctx.Value(commitKey{}).(func() error); f != nil {
		return f()
	}
	return nil
}
