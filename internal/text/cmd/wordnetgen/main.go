// Command wordnetgen derives the lexical relations the analyser uses from WordNet 3.0 and
// writes them as a compact, gzipped table (internal/text/data/wordnet.txt.gz).
//
// Usage (WordNet's database files come from Debian's wordnet-base package, which can be
// unpacked without installing it: apt-get download wordnet-base && dpkg-deb -x *.deb wn):
//
//	go run ./internal/text/cmd/wordnetgen -dict wn/usr/share/wordnet -out internal/text/data/wordnet.txt.gz
//
// For every one-word lemma, every verb, and every phrase seen in WordNet's sense-tagged
// corpus, it keeps, over its most frequent senses: the other lemmas of the same
// synsets (synonyms), derivationally related forms, attributes (loud -> volume), verb
// entailments, and the lemmas of the direct hypernyms. Each relation is written with a weight
// that falls with the sense's rank. Words are written as WordNet spells them (lower case,
// spaces between the words of a phrase); the analyser stems them when it loads the table.
//
// WordNet is distributed under the WordNet 3.0 licence, reproduced in
// internal/text/data/WORDNET-LICENSE; the table is a derived work and ships with it.
package main

import (
	"bufio"
	"compress/gzip"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Relations written to the table, one letter each.
const (
	relSyn    = 's' // same synset
	relDeriv  = 'd' // derivationally related form
	relAttr   = 'a' // attribute
	relEntail = 'e' // verb entailment
	relHyper  = 'h' // direct hypernym
)

const (
	maxSenses  = 3 // senses of a lemma that contribute, most frequent first
	maxPerRel  = 8 // targets kept per relation
	maxHyperLm = 2 // lemmas taken from each hypernym synset
)

type pointer struct {
	sym            string
	offset         string
	pos            byte
	source, target int // 0: the whole synset
}

type synset struct {
	words []string
	ptrs  []pointer
}

type db struct {
	synsets map[string]*synset // pos + offset -> synset
}

func main() {
	dict := flag.String("dict", "/usr/share/wordnet", "WordNet 3.0 database directory (data.*, index.*)")
	out := flag.String("out", "internal/text/data/wordnet.txt.gz", "output file")
	flag.Parse()
	if err := run(*dict, *out); err != nil {
		fmt.Fprintln(os.Stderr, "wordnetgen:", err)
		os.Exit(1)
	}
}

func run(dict, out string) error {
	d := &db{synsets: map[string]*synset{}}
	for _, p := range []struct {
		file string
		pos  byte
	}{{"data.noun", 'n'}, {"data.verb", 'v'}, {"data.adj", 'a'}, {"data.adv", 'r'}} {
		if err := d.readData(filepath.Join(dict, p.file), p.pos); err != nil {
			return err
		}
	}
	type entry struct {
		lemma string
		pos   byte
		rels  map[byte]map[string]float64
	}
	var entries []entry
	for _, p := range []struct {
		file string
		pos  byte
	}{{"index.noun", 'n'}, {"index.verb", 'v'}, {"index.adj", 'a'}, {"index.adv", 'r'}} {
		err := readIndex(filepath.Join(dict, p.file), func(lemma string, offsets []string, tagged int) {
			if tagged == 0 && p.pos != 'v' && !plainWord(lemma) {
				return // a phrase never seen in running text: rare, technical or a name
			}
			e := entry{lemma: lemma, pos: p.pos, rels: map[byte]map[string]float64{}}
			add := func(rel byte, w string, weight float64) {
				w = clean(w)
				if w == "" || w == lemma {
					return
				}
				if e.rels[rel] == nil {
					e.rels[rel] = map[string]float64{}
				}
				if weight > e.rels[rel][w] {
					e.rels[rel][w] = weight
				}
			}
			for rank, off := range offsets {
				if rank >= maxSenses {
					break
				}
				ss := d.synsets[string(p.pos)+off]
				if ss == nil {
					continue
				}
				weight := 1 / float64(rank+1)
				self := slices.IndexFunc(ss.words, func(w string) bool { return clean(w) == lemma }) + 1
				for _, w := range ss.words {
					add(relSyn, w, weight)
				}
				for _, ptr := range ss.ptrs {
					tgt := d.synsets[string(ptr.pos)+ptr.offset]
					if tgt == nil {
						continue
					}
					lexical := ptr.source != 0
					if lexical && ptr.source != self {
						continue // a relation of another word of the synset
					}
					targets := tgt.words
					if lexical && ptr.target > 0 && ptr.target <= len(tgt.words) {
						targets = tgt.words[ptr.target-1 : ptr.target]
					}
					switch ptr.sym {
					case "+":
						for _, w := range targets {
							add(relDeriv, w, weight)
						}
					case "=":
						for _, w := range targets {
							add(relAttr, w, weight)
						}
					case "*":
						for _, w := range targets {
							add(relEntail, w, weight)
						}
					case "@":
						for i, w := range targets {
							if i == maxHyperLm {
								break
							}
							add(relHyper, w, weight)
						}
					}
				}
			}
			if len(e.rels) > 0 {
				entries = append(entries, e)
			}
		})
		if err != nil {
			return err
		}
	}
	sort.SliceStable(entries, func(i, j int) bool {
		if entries[i].lemma != entries[j].lemma {
			return entries[i].lemma < entries[j].lemma
		}
		return entries[i].pos < entries[j].pos
	})

	f, err := os.Create(out)
	if err != nil {
		return err
	}
	zw, err := gzip.NewWriterLevel(f, gzip.BestCompression)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(zw)
	fmt.Fprintln(w, "# Derived from WordNet 3.0 (Princeton University) by internal/text/cmd/wordnetgen; see WORDNET-LICENSE.")
	fmt.Fprintln(w, "# lemma<TAB>pos<TAB>rel:target/weight,...;rel:... (rel: s synonym, d derivation, a attribute, e entailment, h hypernym)")
	fmt.Fprintln(w, "# x<TAB>inflected<TAB>base: irregular inflections (from WordNet's exception lists)")
	for _, file := range []string{"noun.exc", "verb.exc", "adj.exc"} {
		if err := writeExceptions(w, filepath.Join(dict, file)); err != nil {
			return err
		}
	}
	for _, e := range entries {
		var parts []string
		for _, rel := range []byte{relSyn, relDeriv, relAttr, relEntail, relHyper} {
			m := e.rels[rel]
			if len(m) == 0 {
				continue
			}
			ts := make([]string, 0, len(m))
			for t := range m {
				ts = append(ts, t)
			}
			sort.Slice(ts, func(i, j int) bool {
				if m[ts[i]] != m[ts[j]] {
					return m[ts[i]] > m[ts[j]]
				}
				return ts[i] < ts[j]
			})
			if len(ts) > maxPerRel {
				ts = ts[:maxPerRel]
			}
			var b strings.Builder
			b.WriteByte(rel)
			b.WriteByte(':')
			for i, t := range ts {
				if i > 0 {
					b.WriteByte(',')
				}
				b.WriteString(t)
				if m[t] < 1 {
					b.WriteByte('/')
					b.WriteString(strconv.FormatFloat(m[t], 'f', 2, 64))
				}
			}
			parts = append(parts, b.String())
		}
		fmt.Fprintf(w, "%s\t%c\t%s\n", e.lemma, e.pos, strings.Join(parts, ";"))
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if err := zw.Close(); err != nil {
		return err
	}
	return f.Close()
}

// clean turns a WordNet word into lower-case words separated by spaces, dropping the
// adjective markers ("(a)", "(p)", "(ip)").
func clean(w string) string {
	if i := strings.IndexByte(w, '('); i > 0 {
		w = w[:i]
	}
	return strings.ToLower(strings.ReplaceAll(w, "_", " "))
}

// plainWord reports whether a lemma is one word of lower-case letters.
func plainWord(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 'a' || s[i] > 'z' {
			return false
		}
	}
	return s != ""
}

// readData reads a data.<pos> file: one synset per line.
func (d *db) readData(path string, pos byte) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 1<<16), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "  ") {
			continue // licence header
		}
		if i := strings.Index(line, " | "); i >= 0 {
			line = line[:i]
		}
		fs := strings.Fields(line)
		if len(fs) < 4 {
			continue
		}
		n, err := strconv.ParseInt(fs[3], 16, 32)
		if err != nil {
			return fmt.Errorf("%s: word count %q: %w", path, fs[3], err)
		}
		ss := &synset{}
		i := 4
		for k := 0; k < int(n) && i+1 < len(fs); k++ {
			ss.words = append(ss.words, fs[i])
			i += 2
		}
		if i >= len(fs) {
			continue
		}
		np, err := strconv.Atoi(fs[i])
		if err != nil {
			return fmt.Errorf("%s: pointer count %q: %w", path, fs[i], err)
		}
		i++
		for k := 0; k < np && i+3 < len(fs); k++ {
			st := fs[i+3]
			src, _ := strconv.ParseInt(st[:2], 16, 32)
			tgt, _ := strconv.ParseInt(st[2:], 16, 32)
			p := fs[i+2][0]
			if p == 's' {
				p = 'a' // satellite adjectives live in data.adj
			}
			ss.ptrs = append(ss.ptrs, pointer{sym: fs[i], offset: fs[i+1], pos: p, source: int(src), target: int(tgt)})
			i += 4
		}
		d.synsets[string(pos)+fs[0]] = ss
	}
	return sc.Err()
}

// readIndex reads an index.<pos> file and calls f for every lemma with its synset offsets,
// most frequent sense first, and its count of senses seen in the tagged corpus.
func readIndex(path string, f func(lemma string, offsets []string, tagged int)) error {
	file, err := os.Open(path)
	if err != nil {
		return err
	}
	defer file.Close()
	sc := bufio.NewScanner(file)
	sc.Buffer(make([]byte, 0, 1<<16), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "  ") {
			continue
		}
		fs := strings.Fields(line)
		if len(fs) < 6 {
			continue
		}
		senses, err1 := strconv.Atoi(fs[2])
		np, err2 := strconv.Atoi(fs[3])
		if err1 != nil || err2 != nil || len(fs) < 4+np+2+senses {
			return fmt.Errorf("%s: bad line %q", path, line)
		}
		tagged, _ := strconv.Atoi(fs[4+np+1])
		offsets := fs[4+np+2 : 4+np+2+senses]
		f(clean(fs[0]), offsets, tagged)
	}
	return sc.Err()
}

// writeExceptions copies WordNet's irregular inflections ("children child", "cancelled
// cancel") for one-word forms.
func writeExceptions(w io.Writer, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		if len(fs) < 2 || !plainWord(fs[0]) || !plainWord(fs[1]) || fs[0] == fs[1] {
			continue
		}
		fmt.Fprintf(w, "x\t%s\t%s\n", fs[0], fs[1])
	}
	return sc.Err()
}
