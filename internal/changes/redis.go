package changes

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
)

// redisShare is a Feed's link to the other processes sharing one Redis.
type redisShare struct {
	feed             *Feed
	client           redis.UniversalClient
	counter, channel string
	// origin tells this process's messages from the others'.
	origin string

	// mu orders every change of applied with the delivery it follows.
	mu sync.Mutex
	// applied is the number of the last change delivered here; -1 while
	// not subscribed.
	applied atomic.Int64
}

// publishScript numbers changes (ARGV[1] of them) and announces them,
// atomically: the message is "<number of the last> <changes>".
var publishScript = redis.NewScript(`
local n = redis.call('INCRBY', KEYS[1], ARGV[1])
redis.call('PUBLISH', KEYS[2], n .. ' ' .. ARGV[2])
return n`)

// ShareRedis makes f number its changes in, and hear of every other
// process's through, the Redis of client, under prefix, until ctx ends.
// Until it has subscribed, and whenever the subscription breaks, Current
// is false. Call it once, before the Feed's store is used.
func (f *Feed) ShareRedis(ctx context.Context, client redis.UniversalClient, prefix string) {
	r := &redisShare{feed: f, client: client, counter: prefix + "seq", channel: prefix + "feed", origin: rand.Text()}
	r.applied.Store(-1)
	f.shared.Store(r)
	go r.run(ctx)
}

// current reports whether every change announced so far was delivered here.
func (r *redisShare) current(ctx context.Context) bool {
	a := r.applied.Load()
	if a < 0 {
		return false
	}
	n, err := r.count(ctx)
	if err != nil {
		return false
	}
	if n < a {
		// The counter went back: Redis lost its data. Start over from it.
		r.mu.Lock()
		if r.applied.Load() == a {
			r.feed.deliver(Change{Lost: true})
			r.applied.Store(n)
		}
		r.mu.Unlock()
		return false
	}
	return n == a
}

func (r *redisShare) count(ctx context.Context) (int64, error) {
	n, err := r.client.Get(ctx, r.counter).Int64()
	if errors.Is(err, redis.Nil) {
		return 0, nil
	}
	return n, err
}

// wireChange is a Change as messages carry it.
type wireChange struct {
	Site string      `json:"s"`
	Keys [][2]string `json:"k"` // kind name, id
}

type wireMessage struct {
	Origin  string       `json:"o"`
	Changes []wireChange `json:"c"`
}

// publish numbers and announces changes, and returns the number of the
// last.
func (r *redisShare) publish(ctx context.Context, changes []Change) (int64, error) {
	m := wireMessage{Origin: r.origin, Changes: make([]wireChange, len(changes))}
	for i, c := range changes {
		w := wireChange{Site: c.Site, Keys: make([][2]string, len(c.Keys))}
		for j, k := range c.Keys {
			w.Keys[j] = [2]string{k.Kind.String(), k.ID}
		}
		m.Changes[i] = w
	}
	body, err := json.Marshal(m)
	if err != nil {
		return 0, err
	}
	return publishScript.Run(ctx, r.client, []string{r.counter, r.channel}, len(changes), body).Int64()
}

// appliedOwn notes that this process's changes first to last were
// delivered here: when they follow the last change applied, the process is
// current without waiting for their message.
func (r *redisShare) appliedOwn(first, last int64) {
	r.mu.Lock()
	r.applied.CompareAndSwap(first-1, last)
	r.mu.Unlock()
}

// run subscribes, and delivers changes as they come, until ctx ends.
func (r *redisShare) run(ctx context.Context) {
	for ctx.Err() == nil {
		r.subscribe(ctx)
		r.applied.Store(-1)
		select {
		case <-ctx.Done():
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// subscribe delivers changes from one subscription until it breaks.
func (r *redisShare) subscribe(ctx context.Context) {
	ps := r.client.Subscribe(ctx, r.channel)
	defer ps.Close()
	if _, err := ps.Receive(ctx); err != nil { // the subscription's confirmation
		return
	}
	// Changes numbered up to n were committed before this read: forgetting
	// everything covers them; later ones arrive on the subscription.
	n, err := r.count(ctx)
	if err != nil {
		return
	}
	r.mu.Lock()
	r.feed.deliver(Change{Lost: true})
	r.applied.Store(n)
	r.mu.Unlock()
	for {
		msg, err := ps.ReceiveMessage(ctx)
		if err != nil {
			return
		}
		r.receive(msg.Payload)
	}
}

// receive delivers the changes of one message, in their order.
func (r *redisShare) receive(payload string) {
	num, body, _ := strings.Cut(payload, " ")
	last, err := strconv.ParseInt(num, 10, 64)
	var m wireMessage
	var changes []Change
	if err == nil {
		if err = json.Unmarshal([]byte(body), &m); err == nil {
			changes, err = m.decode()
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if err != nil {
		// Not ours to read: whatever it announced is lost. The counter
		// stays ahead of applied, so reads go to the store until the next
		// message shows the gap.
		r.feed.deliver(Change{Lost: true})
		return
	}
	first := last - int64(len(changes)) + 1
	a := r.applied.Load()
	switch {
	case last <= a:
		return // delivered already: this process's own, or before the subscription synced
	case first == a+1:
		if m.Origin != r.origin { // this process's own were delivered as they committed
			for i := range changes {
				changes[i].Seq = first + int64(i)
			}
			r.feed.deliver(changes...)
		}
	default:
		r.feed.deliver(Change{Lost: true}) // a message was lost
	}
	r.applied.Store(last)
}

// decode returns the message's changes; an error for a kind this version
// does not know.
func (m *wireMessage) decode() ([]Change, error) {
	out := make([]Change, len(m.Changes))
	for i, w := range m.Changes {
		c := Change{Site: w.Site, Keys: make([]Key, len(w.Keys))}
		for j, k := range w.Keys {
			kind, ok := kindNamed(k[0])
			if !ok {
				return nil, errors.New("changes: unknown kind " + strconv.Quote(k[0]))
			}
			c.Keys[j] = Key{Kind: kind, ID: k[1]}
		}
		out[i] = c
	}
	if len(out) == 0 {
		return nil, errors.New("changes: a message with no change")
	}
	return out, nil
}
