package hint

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"sync"
)

// Features of one (prompt clause, action) pair. An action's score for a clause is the dot
// product of its features with the weights; see Weights.
const (
	// Prompt words matched in the action's slug words, display name, description: the sum of
	// each matched term's weight (its role in the clause) times its IDF over the candidates.
	featSlug = iota
	featName
	featDesc
	// The prompt's own words matched only in a parameter name ("channel", "due_date").
	featParam
	// The same for terms that expand a prompt word, by source, in the slug or name ("key")
	// and in the description.
	featSynKey
	featSynDesc
	featDerivKey
	featDerivDesc
	featHyperKey
	featHyperDesc
	featContextKey
	featContextDesc
	// The clause's intent verb against the action's main verb: the same class, the same
	// family, add for create, a verb of a family that partly overlaps (create and update,
	// send and create), a verb of another family, no verb in the slug.
	featVerbSame
	featVerbFamily
	featVerbAddCreate
	featVerbRelated
	featVerbConflict
	featVerbNone
	// A capability of the action equal to a specific one the clause asks for; an action
	// whose specific capabilities are all other than the clause's specific ones.
	featCapability
	featCapabilityOther
	// Read actions: several things asked for and a list or search action; several asked
	// for and an action that takes one ID; one thing by ID and a get; a thing known by name
	// and a search.
	featPluralList
	featPluralByID
	featIDGet
	featNameSearch
	// The app: named by the clause (the mention's strength), another app named instead,
	// how central the clause's object is to the app (the share of its actions whose slug
	// holds it, relative to the app where it is most central), whether it is one of the
	// app's main objects, and the clause's words in the app's own description.
	featAppNamed
	featAppOther
	featAppObject
	featMainObject
	featAppDesc
	// Sources outside the lexical ranking, zero without them: the workspace's record with
	// the action, the clause's terms having led to it before, the share of the clause's
	// terms (by IDF) that led to it, how surely the request repeats earlier successful
	// calls of it (see usageModel.repeats), semantic similarity.
	featPrior
	featLearnt
	featCover
	featRepeat
	featSemantic
	// The classifier's confidence in the action's capabilities.
	featConfidence
	// Slug words the clause does not explain (at most maxUnexplained); a number or a version
	// ("v2") in the slug is none.
	featUnexplained
	// The recall stage: the action's BM25F score for the clause relative to the clause's
	// best (see recall.go), whether it is that best, and whether it is a candidate on recall alone (it failed the
	// gate of what the clause acts on, its capabilities and the named app's verbs).
	featBM25F
	featBM25FTop
	featRecallOnly
	// The action's BM25F score for the whole prompt (every step's words at once) relative
	// to the best: what a clause's list is checked against when the split into clauses
	// was a guess.
	featPromptBM25F
	// How much of the whole prompt the action's app covers: the prompt's words (weighted by
	// their IDF over the apps in scope) that any of the app's actions or its name holds,
	// relative to the app that covers most. A request is usually about one app, and its
	// steps' actions are that app's, though each step alone may match another better.
	featAppFocus
	// The clause is the first of several stated ones (a request often opens by saying
	// what it is for), and its verb is said in the progressive ("I'm planning a trip"),
	// which describes what is going on more often than it asks for something.
	featFirstOfSeveral
	featProgressive
	// The share of the action's app's name words (by IDF) the prompt says anywhere: a
	// request that names its app once ("the Reqres API", "golf") is about it in every step.
	featPromptApp
	// The clause's own words that only the action's app's name holds (by IDF), when the
	// clause does not name the app by it: "love quotes" and an app called "Love quotes by
	// Melon", whose actions' slugs leave out the words of its name.
	featAppWords
	numFeatures
)

// Selection parameters, stored after the feature weights.
const (
	paramKeepRatio = numFeatures + iota // listed actions score at least this share of the clause's best
	paramMinScore                       // ... and at least this much
	// A stated clause whose best action scores below this share of the best clause's best
	// joins the interleave one round late: a sentence that describes ("I'm planning a
	// trip") rather than asks should not take a place before the steps' first actions.
	paramDeferRatio
	// A stated clause whose best action scores below this share of the best clause's best
	// takes its place after the others in each round of the interleave: the request's
	// clearest step leads, and a weaker one, often a sentence that sets the scene, follows
	// it without losing its places (0: the prompt's order, a clause with nothing above zero
	// last).
	paramLeadRatio
	// How much the whole prompt's BM25F ranking counts beside the clauses' interleaved
	// lists when the list is put in its final order (a reciprocal-rank fusion; 0: not at
	// all), for a request of one stated step, of two, and of more (fuse_many is for three,
	// and grows by half of it with each step more).
	paramFuseSingle
	paramFuseMulti
	paramFuseMany
	// The calibrated probability that the first action is right (calibrate.go): a bias,
	// then one coefficient per piece of evidence, in the order of the ev* constants.
	paramCalibBias
	paramCalibScore
	paramCalibMargin
	paramCalibNamed
	paramCalibRecall
	paramCalibAgree
	paramCalibSteps
	paramCalibCapability
	paramCalibVerb
	paramCalibUnexplained
	paramCalibPrompt
	paramCalibFocus
	paramConfidentP // the probability from which the hint is confident
	numWeights
)

var weightNames = [numWeights]string{
	featSlug: "slug", featName: "name", featDesc: "desc", featParam: "param",
	featSynKey: "synonym_key", featSynDesc: "synonym_desc",
	featDerivKey: "derived_key", featDerivDesc: "derived_desc",
	featHyperKey: "hypernym_key", featHyperDesc: "hypernym_desc",
	featContextKey: "context_key", featContextDesc: "context_desc",
	featVerbSame: "verb_same", featVerbFamily: "verb_family", featVerbAddCreate: "verb_add_create",
	featVerbRelated: "verb_related", featVerbConflict: "verb_conflict", featVerbNone: "verb_none",
	featCapability: "capability", featCapabilityOther: "capability_other",
	featPluralList: "plural_list", featPluralByID: "plural_by_id", featIDGet: "id_get", featNameSearch: "name_search",
	featAppNamed: "app_named", featAppOther: "app_other", featAppObject: "app_object", featMainObject: "main_object", featAppDesc: "app_desc",
	featPrior: "usage_prior", featLearnt: "usage_terms", featCover: "usage_cover", featRepeat: "usage_repeat", featSemantic: "semantic",
	featConfidence: "confidence", featUnexplained: "unexplained",
	featBM25F: "bm25f", featBM25FTop: "bm25f_top", featRecallOnly: "recall_only", featPromptBM25F: "prompt_bm25f", featAppFocus: "app_focus", featFirstOfSeveral: "first_of_several", featProgressive: "progressive", featPromptApp: "prompt_app",
	featAppWords:   "app_words",
	paramKeepRatio: "keep_ratio", paramMinScore: "min_score", paramDeferRatio: "defer_ratio", paramLeadRatio: "lead_ratio", paramFuseSingle: "fuse_single", paramFuseMulti: "fuse_multi", paramFuseMany: "fuse_many",
	paramCalibBias: "calib_bias", paramCalibScore: "calib_score", paramCalibMargin: "calib_margin",
	paramCalibNamed: "calib_named", paramCalibRecall: "calib_recall", paramCalibAgree: "calib_agree",
	paramCalibSteps: "calib_steps", paramCalibCapability: "calib_capability", paramCalibVerb: "calib_verb",
	paramCalibUnexplained: "calib_unexplained", paramCalibPrompt: "calib_prompt", paramCalibFocus: "calib_focus",
	paramConfidentP: "confident_p",
}

// Weights are the ranking's weights: one per feature of a (clause, action) pair, and the
// selection parameters (what share of the best score an action needs to be listed, the least
// score, and the score and lead over the next action from which the hint is confident). The package ships weights fitted on
// labelled prompts (DefaultWeights); hint/hinteval fits new ones. A Weights is a plain value,
// safe to copy and to share.
type Weights struct {
	v [numWeights]float64
}

//go:embed weights.json
var weightsJSON []byte

var defaultWeights = sync.OnceValue(func() Weights {
	var w Weights
	// weights.json is part of the package and checked by its tests; should it fail to
	// parse, neutral weights still rank by matched words and verbs.
	if err := json.Unmarshal(weightsJSON, &w); err != nil {
		return NeutralWeights()
	}
	return w
})

// DefaultWeights returns the weights the package ships (weights.json, fitted by
// hinteval.Fit on the project's labelled prompts).
func DefaultWeights() Weights { return defaultWeights() }

// NeutralWeights are the starting point of fitting (hinteval.Fit): every match counts by its field, a verb
// that agrees counts, and nothing else does.
func NeutralWeights() Weights {
	var w Weights
	for k, v := range map[int]float64{
		// Matches: IDF is scaled to [0, 1] (one for a word a single action holds), so a
		// matched word of the clause's object weighs about as much as an agreeing verb.
		featSlug: 6, featName: 5, featDesc: 2, featParam: 0.5, featSynKey: 2, featSynDesc: 0.6,
		featDerivKey: 2, featDerivDesc: 0.6, featHyperKey: 1, featHyperDesc: 0.3,
		featContextKey: 3, featContextDesc: 1,
		featVerbSame: 1.5, featVerbFamily: 0.6, featVerbAddCreate: 1.2, featVerbRelated: 0, featVerbConflict: -1, featVerbNone: -0.2,
		featCapability: 1.2, featCapabilityOther: -0.5, featPluralList: 0.4, featPluralByID: -0.4, featIDGet: 0.4, featNameSearch: 0.4,
		featAppNamed: 1.5, featAppOther: -0.6, featAppObject: 0.5, featMainObject: 0.5, featAppDesc: 0.5,
		featPrior: 1, featLearnt: 2, featCover: 1, featRepeat: 6, featSemantic: 1,
		featConfidence: 0.3, featUnexplained: -0.6,
		featBM25F: 1, featBM25FTop: 0.5, featRecallOnly: -1, featPromptBM25F: 0.5,
		paramKeepRatio: 0.4, paramMinScore: 0.3, paramDeferRatio: 0.3,
		// Confident only when the score is high and leads well: p = 0.9 at score 6, margin 2.
		paramCalibBias: -6, paramCalibScore: 1, paramCalibMargin: 0.6, paramConfidentP: 0.9,
	} {
		w.v[k] = v
	}
	return w
}

// WeightNames lists the names of the weights, in their order.
func WeightNames() []string { return append([]string(nil), weightNames[:]...) }

// Get returns the weight with the given name.
func (w Weights) Get(name string) (float64, bool) {
	for i, n := range weightNames {
		if n == name {
			return w.v[i], true
		}
	}
	return 0, false
}

// With returns w with the named weight set to v. An unknown name leaves w unchanged.
func (w Weights) With(name string, v float64) Weights {
	for i, n := range weightNames {
		if n == name {
			w.v[i] = v
		}
	}
	return w
}

// MarshalJSON writes the weights as an object of names to values, sorted by name.
func (w Weights) MarshalJSON() ([]byte, error) {
	m := make(map[string]float64, numWeights)
	for i, n := range weightNames {
		m[n] = math.Round(w.v[i]*1e4) / 1e4
	}
	return json.Marshal(m)
}

// UnmarshalJSON reads an object of names to values. Every weight must be present and finite;
// an unknown name is an error.
func (w *Weights) UnmarshalJSON(b []byte) error {
	var m map[string]float64
	if err := json.Unmarshal(b, &m); err != nil {
		return fmt.Errorf("hint: weights: %w", err)
	}
	var out Weights
	seen := 0
	for name, v := range m {
		i := -1
		for k, n := range weightNames {
			if n == name {
				i = k
			}
		}
		if i < 0 {
			return fmt.Errorf("hint: weights: unknown weight %q", name)
		}
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("hint: weights: %q is not finite", name)
		}
		out.v[i] = v
		seen++
	}
	if seen != numWeights {
		var missing []string
		for _, n := range weightNames {
			if _, ok := m[n]; !ok {
				missing = append(missing, n)
			}
		}
		sort.Strings(missing)
		return fmt.Errorf("hint: weights: missing %v", missing)
	}
	*w = out
	return nil
}
