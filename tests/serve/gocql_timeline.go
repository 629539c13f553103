// gocql 1.3.2 against `lbsim serve` through a fault (tests/serve_faults_test.cpp):
// TokenAwareHostPolicy(RoundRobinHostPolicy()) as gocql_client.go, a read of a random 8-byte key
// every PERIOD_MS for SECONDS, each in its own goroutine. Prints one JSON document: per request
// its send and completion times (CLOCK_MONOTONIC nanoseconds, the clock of serve.json's
// started_steady_ns; Go keeps its own monotonic reading private, so it is read with
// clock_gettime), its key, the host that answered ("" on failure), the host it was sent to
// ("tried", set on failure too) and the error. TIMEOUT_MS sets ClusterConfig.Timeout (default
// 10 s).
//
//   gocql_timeline ADDRESS PORT SECONDS PERIOD_MS SEED [TIMEOUT_MS]
package main

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"strconv"
	"sync"
	"syscall"
	"time"
	"unsafe"

	"github.com/gocql/gocql"
)

func monotonic() int64 {
	var ts syscall.Timespec
	syscall.Syscall(syscall.SYS_CLOCK_GETTIME, 1 /* CLOCK_MONOTONIC */, uintptr(unsafe.Pointer(&ts)), 0)
	return ts.Sec*1e9 + ts.Nsec
}

type entry struct {
	Sent  int64  `json:"sent"`
	Done  int64  `json:"done"`
	Key   string `json:"key"`
	Host  string `json:"host"`
	Tried string `json:"tried"`
	Error string `json:"error"`
}

func main() {
	address := os.Args[1]
	port, _ := strconv.Atoi(os.Args[2])
	seconds, _ := strconv.ParseFloat(os.Args[3], 64)
	periodMs, _ := strconv.ParseFloat(os.Args[4], 64)
	seed, _ := strconv.ParseInt(os.Args[5], 10, 64)

	cluster := gocql.NewCluster(address)
	cluster.Port = port
	cluster.Keyspace = "lbsim"
	cluster.ProtoVersion = 4
	cluster.Consistency = gocql.LocalOne
	cluster.Timeout = 10 * time.Second
	if len(os.Args) > 6 {
		ms, _ := strconv.Atoi(os.Args[6])
		cluster.Timeout = time.Duration(ms) * time.Millisecond
	}
	cluster.ConnectTimeout = 10 * time.Second
	cluster.PoolConfig.HostSelectionPolicy = gocql.TokenAwareHostPolicy(gocql.RoundRobinHostPolicy())
	session, err := cluster.CreateSession()
	if err != nil {
		fmt.Fprintln(os.Stderr, "connect:", err)
		os.Exit(1)
	}
	time.Sleep(500 * time.Millisecond) // the policy learns every host and the keyspace's replicas

	rng := rand.New(rand.NewSource(seed))
	n := int(seconds * 1000 / periodMs)
	entries := make([]entry, n)
	var wg sync.WaitGroup
	start := time.Now()
	for i := 0; i < n; i++ {
		due := start.Add(time.Duration(float64(i) * periodMs * float64(time.Millisecond)))
		if d := time.Until(due); d > 0 {
			time.Sleep(d)
		}
		key := make([]byte, 8)
		rng.Read(key)
		entries[i] = entry{Sent: monotonic(), Key: hex.EncodeToString(key)}
		wg.Add(1)
		go func(e *entry, key []byte) {
			defer wg.Done()
			iter := session.Query("SELECT value FROM lbsim.kv WHERE key = ?", key).Iter()
			host := iter.Host()
			err := iter.Close()
			e.Done = monotonic()
			if host != nil {
				e.Tried = host.ConnectAddress().String()
			}
			if err != nil || host == nil {
				if err != nil {
					e.Error = err.Error()
				}
				return
			}
			e.Host = host.ConnectAddress().String()
		}(&entries[i], key)
	}
	wg.Wait()
	session.Close()
	out, _ := json.Marshal(map[string]interface{}{"requests": entries, "changes": []interface{}{}, "sent": n})
	fmt.Println(string(out))
}
