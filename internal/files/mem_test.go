package files_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"runtime"
	"testing"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"

	"github.com/tessera-cms/tessera/internal/files"
)

// fakeS3Env makes the test binary serve a fake S3 instead of running tests
// (see openS3Process).
const fakeS3Env = "TESSERA_FILES_TEST_FAKE_S3"

func TestMain(m *testing.M) {
	if os.Getenv(fakeS3Env) == "1" {
		serveFakeS3()
		return
	}
	os.Exit(m.Run())
}

// serveFakeS3 serves an S3 fake with bucket "tessera" on a loopback port,
// prints the address, and exits when standard input closes.
func serveFakeS3() {
	mem := s3mem.New()
	if err := mem.CreateBucket("tessera"); err != nil {
		panic(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	fmt.Println(l.Addr().String())
	go func() {
		io.Copy(io.Discard, os.Stdin)
		os.Exit(0)
	}()
	http.Serve(l, gofakes3.New(mem, gofakes3.WithLogger(gofakes3.DiscardLog())).Server())
}

// openS3Process opens a store on a fake S3 running in a child process, so
// that the heap of this process holds only the client's side of an upload.
func openS3Process(tb testing.TB, opt files.Options) *files.Store {
	tb.Helper()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), fakeS3Env+"=1")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		tb.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		stdin.Close()
		cmd.Wait()
	})
	addr, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		tb.Fatalf("fake S3 process: %v", err)
	}
	q := url.Values{
		"endpoint":                     {"http://" + addr[:len(addr)-1]},
		"region":                       {"us-east-1"},
		"use_path_style":               {"true"},
		"anonymous":                    {"true"},
		"request_checksum_calculation": {"when_required"},
	}
	return mustOpen(tb, "s3://tessera?"+q.Encode(), opt)
}

const memFileSize = 20 << 20

// heapSampler is a reader of n pseudo-random bytes that records the
// largest live heap seen every sampleEvery bytes, so a test can see what
// Put holds while it streams.
type heapSampler struct {
	live    bool // collect garbage before each sample
	n, read int64
	next    int64
	state   uint64
	base    uint64
	peak    uint64
	samples int
	ms      runtime.MemStats
}

const sampleEvery = 256 << 10

func newHeapSampler(n int64, live bool) *heapSampler {
	s := &heapSampler{n: n, live: live, state: 0x9e3779b97f4a7c15}
	runtime.GC()
	runtime.ReadMemStats(&s.ms)
	s.base = s.ms.HeapAlloc
	return s
}

func (s *heapSampler) Read(p []byte) (int, error) {
	if s.read >= s.n {
		s.sample()
		return 0, io.EOF
	}
	p = p[:min(int64(len(p)), s.n-s.read)]
	for i := range p {
		// xorshift: incompressible, never looks like markup.
		s.state ^= s.state << 13
		s.state ^= s.state >> 7
		s.state ^= s.state << 17
		p[i] = byte(s.state)
	}
	s.read += int64(len(p))
	if s.read >= s.next {
		s.sample()
		s.next += sampleEvery
	}
	return len(p), nil
}

func (s *heapSampler) sample() {
	if s.live {
		runtime.GC()
	}
	runtime.ReadMemStats(&s.ms)
	s.samples++
	s.peak = max(s.peak, s.ms.HeapAlloc)
}

// growth is the peak heap growth over the heap before the upload, in bytes.
func (s *heapSampler) growth() uint64 {
	if s.peak < s.base {
		return 0
	}
	return s.peak - s.base
}

// TestPutMemory checks that Put streams: while a 20 MB upload passes, the
// heap (live objects and not yet collected garbage) grows by far less than
// the file. Buffering the file would grow it by at least 20 MB.
func TestPutMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("20 MB upload")
	}
	s := openLocal(t, files.Options{})
	for _, live := range []bool{false, true} {
		r := newHeapSampler(memFileSize, live)
		m, err := s.Put(context.Background(), "site1", "big.bin", "", r, 25<<20, files.PutOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if m.Size != memFileSize {
			t.Fatalf("Size = %d, want %d", m.Size, memFileSize)
		}
		g := r.growth()
		t.Logf("local: 20 MiB upload, peak heap growth (live only: %v) %.2f MiB over %d samples (%.1f%% of the file)",
			live, float64(g)/(1<<20), r.samples, 100*float64(g)/memFileSize)
		if g > memFileSize/4 {
			t.Errorf("peak heap growth %d bytes for a %d-byte upload: Put is buffering", g, memFileSize)
		}
	}
}

// BenchmarkPut20MB uploads 20 MiB per op and reports the peak heap growth
// seen during the upload: peak-heap-MiB counts live objects and garbage not
// yet collected (what the process holds), peak-live-MiB collects garbage
// before each sample (what Put and the driver keep). On s3 the fake server runs in a
// child process, so the figure is the client's: Put and the AWS upload
// manager's buffers.
func BenchmarkPut20MB(b *testing.B) {
	for _, be := range []backend{{"local", openLocal}, {"s3", openS3Process}} {
		b.Run(be.name, func(b *testing.B) {
			s := be.open(b, files.Options{})
			ctx := context.Background()
			b.SetBytes(memFileSize)
			b.ReportAllocs()
			var peak, live uint64
			i := 0
			for b.Loop() {
				r := newHeapSampler(memFileSize, i%2 == 1)
				m, err := s.Put(ctx, "site1", "big.bin", "", r, 25<<20, files.PutOptions{})
				if err != nil {
					b.Fatal(err)
				}
				if r.live {
					live = max(live, r.growth())
				} else {
					peak = max(peak, r.growth())
				}
				i++
				b.StopTimer()
				if err := s.Delete(ctx, m.Key); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
			}
			b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
			b.ReportMetric(float64(live)/(1<<20), "peak-live-MiB")
		})
	}
}
