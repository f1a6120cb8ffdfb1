package upstreamhttp

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestWatchdogSeenSwitchesToGapTimeout(t *testing.T) {
	ctx, w := watch(context.Background(), Timeouts{FirstByte: time.Hour, Gap: time.Millisecond, Total: -1})
	defer w.Stop()
	w.Seen()
	<-ctx.Done()
	if !errors.Is(context.Cause(ctx), ErrGapTimeout) {
		t.Errorf("cause %v, want ErrGapTimeout", context.Cause(ctx))
	}
}
