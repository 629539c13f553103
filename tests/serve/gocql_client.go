// A real driver against `lbsim serve` (tests/serve_drivers_test.cpp): gocql 1.3.2 (Debian's
// golang-github-gocql-gocql-dev, built offline in GOPATH mode) with its token-aware policy,
// TokenAwareHostPolicy(RoundRobinHostPolicy()) (gocql's README and doc.go; the default is round
// robin, so token awareness is the application's choice), upstream defaults otherwise (no replica
// shuffling). Keyspace "lbsim" is the session's: gocql builds its replica map only for
// ClusterConfig.Keyspace (policies.go). It connects to the first node only, then sends N prepared
// statements (half reads, half writes, random 8-byte keys from a seeded generator) with
// CONCURRENCY in flight, and prints, as JSON: the hosts it discovered with their racks, the
// keyspace's replication as gocql read it, the requests each host coordinated (Iter.Host), each
// request's key and host ("requests", for the test to check against the ring, since gocql keeps
// its token map private), and the failures.
//
// RETRIES, when given, sets ClusterConfig.RetryPolicy to SimpleRetryPolicy{NumRetries: RETRIES}:
// gocql 1.3.2's NewCluster sets none, so by default no query is retried.
//
//   gocql_client ADDRESS PORT N SEED CONCURRENCY [RETRIES]
package main

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"sort"
	"strconv"
	"sync"
	"time"

	"github.com/gocql/gocql"
)

func main() {
	address := os.Args[1]
	port, _ := strconv.Atoi(os.Args[2])
	n, _ := strconv.Atoi(os.Args[3])
	seed, _ := strconv.ParseInt(os.Args[4], 10, 64)
	concurrency, _ := strconv.Atoi(os.Args[5])

	cluster := gocql.NewCluster(address)
	cluster.Port = port
	cluster.Keyspace = "lbsim"
	cluster.ProtoVersion = 4
	cluster.Consistency = gocql.LocalOne
	cluster.Timeout = 10 * time.Second
	cluster.ConnectTimeout = 10 * time.Second
	cluster.PoolConfig.HostSelectionPolicy = gocql.TokenAwareHostPolicy(gocql.RoundRobinHostPolicy())
	if len(os.Args) > 6 {
		retries, _ := strconv.Atoi(os.Args[6])
		cluster.RetryPolicy = &gocql.SimpleRetryPolicy{NumRetries: retries}
	}
	// gocql 1.3.2 has no public list of the hosts it knows: its host filter sees each one it discovers.
	var hostMu sync.Mutex
	racks := map[string]string{}
	cluster.HostFilter = gocql.HostFilterFunc(func(h *gocql.HostInfo) bool {
		hostMu.Lock()
		racks[h.ConnectAddress().String()] = h.Rack()
		hostMu.Unlock()
		return true
	})
	session, err := cluster.CreateSession()
	if err != nil {
		fmt.Fprintln(os.Stderr, "connect:", err)
		os.Exit(1)
	}
	defer session.Close()
	// Give the policy time to learn every host and the keyspace's replicas (AddHost is asynchronous).
	time.Sleep(2 * time.Second)

	out := map[string]interface{}{}
	meta, err := session.KeyspaceMetadata("lbsim")
	if err == nil {
		out["keyspaces"] = []string{meta.Name}
		out["strategy"] = meta.StrategyClass
	} else {
		out["keyspaces"] = []string{}
	}

	rng := rand.New(rand.NewSource(seed))
	keys := make([][]byte, n)
	for i := range keys {
		keys[i] = make([]byte, 8)
		rng.Read(keys[i])
	}
	hosts := make([]string, n)
	failures := 0
	var mu sync.Mutex
	var wg sync.WaitGroup
	next := 0
	for w := 0; w < concurrency; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				i := next
				next++
				mu.Unlock()
				if i >= n {
					return
				}
				var q *gocql.Query
				if i%2 == 0 {
					q = session.Query("SELECT value FROM lbsim.kv WHERE key = ?", keys[i])
				} else {
					q = session.Query("INSERT INTO lbsim.kv (key, value) VALUES (?, ?)", keys[i], []byte("v"))
				}
				iter := q.Iter()
				host := iter.Host()
				if err := iter.Close(); err != nil || host == nil {
					mu.Lock()
					failures++
					mu.Unlock()
					continue
				}
				hosts[i] = host.ConnectAddress().String()
			}
		}()
	}
	wg.Wait()

	sent := map[string]int{}
	requests := make([][2]string, 0, n)
	for i, h := range hosts {
		if h == "" {
			continue
		}
		sent[h]++
		requests = append(requests, [2]string{hex.EncodeToString(keys[i]), h})
	}
	found := []string{}
	hostMu.Lock()
	for h := range racks {
		found = append(found, h)
	}
	hostMu.Unlock()
	sort.Strings(found)
	out["hosts"] = found
	out["sent"] = sent
	out["requests"] = requests
	out["failures"] = failures
	out["non_replica"] = 0 // checked by the test against the ring
	out["racks"] = racks
	enc, _ := json.Marshal(out)
	fmt.Println(string(enc))
}
