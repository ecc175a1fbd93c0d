package evm

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestReceiptPollIsFastThenBacksOff checks the polling schedule: doubling from 5 ms, never more than
// 100 ms apart for the first 10 s (a dev-chain block is a second), then backing off to 1 s.
func TestReceiptPollIsFastThenBacksOff(t *testing.T) {
	t.Parallel()
	require.Equal(t, 10*time.Millisecond, receiptPoll(receiptPollFirst, 0))
	require.Equal(t, 100*time.Millisecond, receiptPoll(80*time.Millisecond, time.Second))
	require.Equal(t, 100*time.Millisecond, receiptPoll(100*time.Millisecond, 9*time.Second))
	require.Equal(t, 200*time.Millisecond, receiptPoll(100*time.Millisecond, 11*time.Second))
	require.Equal(t, time.Second, receiptPoll(time.Second, time.Minute))
}
