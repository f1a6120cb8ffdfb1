package bolt

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"github.com/farebox/farebox/books"
	"strconv"
	"time"

	"github.com/farebox/farebox/internal/groupcommit"
	bbolt "go.etcd.io/bbolt"
)

var (
	bucketRows = []byte("books.rows")
	bucketOnce = []byte("books.once")
)

// Books keeps the books in the settlement journal's bbolt file,
// committing with the journal's group commits (one fsync for both).
type Books struct {
	c *groupcommit.Committer
}

// NewBooks opens the books' buckets in the file c commits to.
func NewBooks(c *groupcommit.Committer) (*Books, error) {
	err := c.DB().Update(func(tx *bbolt.Tx) error {
		for _, b := range [][]byte{bucketRows, bucketOnce} {
			if _, err := tx.CreateBucketIfNotExists(b); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return &Books{c: c}, nil
}

// Apply adds the deltas in one transaction.
func (s *Books) Apply(_ context.Context, ds []books.Delta) error {
	_, err := s.c.Update(func(tx *bbolt.Tx) (error, error) {
		rows, once := tx.Bucket(bucketRows), tx.Bucket(bucketOnce)
		for i := range ds {
			d := &ds[i]
			if d.Once != "" {
				if once.Get([]byte(d.Once)) != nil {
					continue
				}
				if err := once.Put([]byte(d.Once), binary.BigEndian.AppendUint64(nil, uint64(d.At.Unix()))); err != nil {
					return nil, err
				}
			}
			if d.Moved {
				if err := addBolt(rows, d.Source(), books.Negated(d.Fields)); err != nil {
					return nil, err
				}
			}
			if err := addBolt(rows, d.Row(), d.Fields); err != nil {
				return nil, err
			}
		}
		return nil, nil
	})
	return err
}

func addBolt(b *bbolt.Bucket, k books.Key, fields map[string]int64) error {
	name := []byte(k.String())
	cur := map[string]int64{}
	if v := b.Get(name); v != nil {
		if err := json.Unmarshal(v, &cur); err != nil {
			return err
		}
	}
	for f, v := range fields {
		cur[f] += v
	}
	v, err := json.Marshal(cur)
	if err != nil {
		return err
	}
	return b.Put(name, v)
}

// Rows returns the rows overlapping [from, to). Names start with the
// period's kind and its start in unix seconds (ten digits until 2286), so
// each kind's rows of the range are one cursor walk, not a scan.
func (s *Books) Rows(_ context.Context, from, to time.Time) ([]books.Row, error) {
	var out []books.Row
	err := s.c.DB().View(func(tx *bbolt.Tx) error {
		cur := tx.Bucket(bucketRows).Cursor()
		for _, kind := range []struct {
			prefix string
			span   time.Duration
		}{{"h|", time.Hour}, {"d|", 24 * time.Hour}} {
			seek := []byte(kind.prefix + strconv.FormatInt(from.Add(-kind.span).Unix(), 10))
			end := []byte(kind.prefix + strconv.FormatInt(to.Unix(), 10) + "|")
			for name, v := cur.Seek(seek); name != nil && bytes.HasPrefix(name, []byte(kind.prefix)) && bytes.Compare(name, end) < 0; name, v = cur.Next() {
				k, err := books.ParseKey(string(name))
				if err != nil || !books.Overlaps(k, from, to) {
					continue // a row of a later format is not this version's to read
				}
				f := map[string]int64{}
				if err := json.Unmarshal(v, &f); err != nil {
					return err
				}
				out = append(out, books.Row{Key: k, Fields: f})
			}
		}
		return nil
	})
	books.SortRows(out)
	return out, err
}

// Rollup merges old hourly rows into daily ones in one transaction.
func (s *Books) Rollup(_ context.Context, cutoff time.Time) error {
	_, err := s.c.Update(func(tx *bbolt.Tx) (error, error) {
		rows := tx.Bucket(bucketRows)
		type old struct {
			name []byte
			key  books.Key
			f    map[string]int64
		}
		var olds []old
		err := rows.ForEach(func(name, v []byte) error {
			k, err := books.ParseKey(string(name))
			if err != nil || k.Day || !k.Start.Before(cutoff) {
				return nil
			}
			f := map[string]int64{}
			if err := json.Unmarshal(v, &f); err != nil {
				return err
			}
			olds = append(olds, old{append([]byte(nil), name...), k, f})
			return nil
		})
		if err != nil {
			return nil, err
		}
		for _, o := range olds {
			if err := rows.Delete(o.name); err != nil {
				return nil, err
			}
			if err := addBolt(rows, books.DayOf(o.key), o.f); err != nil {
				return nil, err
			}
		}
		once := tx.Bucket(bucketOnce)
		var gone [][]byte
		_ = once.ForEach(func(k, v []byte) error {
			if len(v) == 8 && int64(binary.BigEndian.Uint64(v)) < cutoff.Unix() {
				gone = append(gone, append([]byte(nil), k...))
			}
			return nil
		})
		for _, k := range gone {
			if err := once.Delete(k); err != nil {
				return nil, err
			}
		}
		return nil, nil
	})
	return err
}
