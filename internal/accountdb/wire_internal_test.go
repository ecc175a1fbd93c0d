package accountdb

import (
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestWireDoneReadsAndReleases: a wire reads the messages sent to it, done answers an error (and keeps
// the wire out of the pool) when bytes are left after the last answer, and a wire given back holds no
// connection, no buffered bytes and no body larger than the pool keeps.
func TestWireDoneReadsAndReleases(t *testing.T) {
	t.Parallel()
	client, server := net.Pipe()
	t.Cleanup(func() { _ = client.Close(); _ = server.Close() })
	go func() {
		// ReadyForQuery (idle), then one byte too many.
		_, _ = server.Write([]byte{beReadyForQuery, 0, 0, 0, 5, txIdle, 'x'})
	}()
	w := newWire(client, time.Second)
	typ, body, err := w.next(maxMessage)
	require.NoError(t, err)
	require.Equal(t, byte(beReadyForQuery), typ)
	require.Equal(t, []byte{txIdle}, body)
	require.Eventually(t, func() bool { _, err := w.rd.Peek(1); return err == nil }, time.Second, time.Millisecond)
	require.ErrorIs(t, w.done(), errDesync, "a byte after the last answer is out of step")
	require.Equal(t, client, w.conn, "a wire whose exchange is out of step is not given back")

	w.body = make([]byte, wireKeptBodyCap+1)
	w.release()
	require.Nil(t, w.conn)
	require.Zero(t, w.rd.Buffered())
	require.Nil(t, w.body, "a body over the cap is not kept by the pool")
}
