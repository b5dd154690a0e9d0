package cache

import (
	"errors"
	"math"
	"strconv"
	"strings"
)

// The action_meta table keeps each action's metadata twice: in typed columns (text[] with
// GIN indexes, jsonb) for SQL, and packed into one text column for ActionMeta, which
// hint.Build calls every model turn. Turning five text[] columns and a jsonb column back
// into Go values costs several times more than the query; the packed form is one string per
// row, read back with a few slicing operations.
//
// The packed form is "m1" followed by fields. A string is its byte length in decimal, ':'
// and its bytes, so any content is safe. A list is "n" for nil or its length in decimal,
// '[' and its strings. Booleans are '0' or '1'; the confidence is strconv's shortest 'g'
// form followed by ';'.

const pgPackVersion = "m1"

// pgPackMeta returns the packed form of m's derived fields (not Action and App, which have
// columns of their own).
func pgPackMeta(m ActionMeta) string {
	var b strings.Builder
	b.Grow(256)
	b.WriteString(pgPackVersion)
	for _, l := range [][]string{m.Capabilities, m.Keywords, m.SlugTerms, m.NameTerms, m.DescTerms} {
		pgPackList(&b, l)
	}
	pgPackBool(&b, m.Destructive)
	pgPackBool(&b, m.ReadOnly)
	b.WriteString(strconv.FormatFloat(m.Confidence, 'g', -1, 64))
	b.WriteByte(';')
	if m.Params == nil {
		b.WriteByte('n')
	} else {
		b.WriteString(strconv.Itoa(len(m.Params)))
		b.WriteByte('[')
		for _, p := range m.Params {
			pgPackString(&b, p.Name)
			pgPackString(&b, p.Type)
			pgPackBool(&b, p.Required)
			pgPackString(&b, p.Description)
		}
	}
	return b.String()
}

func pgPackString(b *strings.Builder, s string) {
	b.WriteString(strconv.Itoa(len(s)))
	b.WriteByte(':')
	b.WriteString(s)
}

func pgPackList(b *strings.Builder, l []string) {
	if l == nil {
		b.WriteByte('n')
		return
	}
	b.WriteString(strconv.Itoa(len(l)))
	b.WriteByte('[')
	for _, s := range l {
		pgPackString(b, s)
	}
}

func pgPackBool(b *strings.Builder, v bool) {
	if v {
		b.WriteByte('1')
	} else {
		b.WriteByte('0')
	}
}

var errPgPacked = errors.New("cache: stored action metadata is corrupt")

// pgUnpacker reads a packed form. The strings it returns share the packed string's memory,
// so one row costs one allocation per list rather than one per term.
type pgUnpacker struct {
	s   string
	err error
}

// num reads a decimal number ended by end.
func (u *pgUnpacker) num(end byte) int {
	if u.err != nil {
		return 0
	}
	i := strings.IndexByte(u.s, end)
	if i <= 0 || i > 9 {
		u.err = errPgPacked
		return 0
	}
	n, err := strconv.Atoi(u.s[:i])
	if err != nil || n < 0 {
		u.err = errPgPacked
		return 0
	}
	u.s = u.s[i+1:]
	return n
}

func (u *pgUnpacker) str() string {
	n := u.num(':')
	if u.err != nil {
		return ""
	}
	if n > len(u.s) {
		u.err = errPgPacked
		return ""
	}
	v := u.s[:n]
	u.s = u.s[n:]
	return v
}

// count reads a list length; ok is false for a nil list.
func (u *pgUnpacker) count() (n int, ok bool) {
	if u.err != nil {
		return 0, false
	}
	if strings.HasPrefix(u.s, "n") {
		u.s = u.s[1:]
		return 0, false
	}
	n = u.num('[')
	if n > len(u.s) { // every element takes at least one byte
		u.err = errPgPacked
	}
	return n, u.err == nil
}

func (u *pgUnpacker) list() []string {
	n, ok := u.count()
	if !ok {
		return nil
	}
	l := make([]string, n)
	for i := range l {
		l[i] = u.str()
	}
	return l
}

func (u *pgUnpacker) boolean() bool {
	if u.err != nil {
		return false
	}
	if u.s == "" || (u.s[0] != '0' && u.s[0] != '1') {
		u.err = errPgPacked
		return false
	}
	v := u.s[0] == '1'
	u.s = u.s[1:]
	return v
}

func (u *pgUnpacker) float() float64 {
	if u.err != nil {
		return 0
	}
	i := strings.IndexByte(u.s, ';')
	if i <= 0 {
		u.err = errPgPacked
		return 0
	}
	f, err := strconv.ParseFloat(u.s[:i], 64)
	if err != nil || math.IsNaN(f) {
		u.err = errPgPacked
		return 0
	}
	u.s = u.s[i+1:]
	return f
}

// pgUnpackMeta fills m's derived fields from a packed form.
func pgUnpackMeta(packed string, m *ActionMeta) error {
	if !strings.HasPrefix(packed, pgPackVersion) {
		return errPgPacked
	}
	u := pgUnpacker{s: packed[len(pgPackVersion):]}
	m.Capabilities = u.list()
	m.Keywords = u.list()
	m.SlugTerms = u.list()
	m.NameTerms = u.list()
	m.DescTerms = u.list()
	m.Destructive = u.boolean()
	m.ReadOnly = u.boolean()
	m.Confidence = u.float()
	if n, ok := u.count(); ok {
		m.Params = make([]Param, n)
		for i := range m.Params {
			p := &m.Params[i]
			p.Name = u.str()
			p.Type = u.str()
			p.Required = u.boolean()
			p.Description = u.str()
		}
	}
	if u.err == nil && u.s != "" {
		u.err = errPgPacked
	}
	return u.err
}
