package schemadiff

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// The rules for everything outside the schemas, with their reasons: what the apiserver
// refuses on update (ValidateCustomResourceDefinitionUpdate: group and names.plural are
// immutable, scope and names.kind once the CRD is established, which any CRD in use is; a
// version listed in status.storedVersions cannot leave spec.versions), what stored objects
// lose, and what clients that worked stop being able to do. TestCRDUpdateRefusals holds the
// "refused" reasons to the apiserver's own update validation.

// CRD-level change kinds.
const (
	GroupChanged            Kind = "group-changed"
	ScopeChanged            Kind = "scope-changed"
	NamesChanged            Kind = "names-changed"
	ServedChanged           Kind = "served-changed"
	StorageChanged          Kind = "storage-changed"
	DeprecationChanged      Kind = "deprecation-changed"
	SubresourceChanged      Kind = "subresource-changed"
	ConversionChanged       Kind = "conversion-changed"
	PrinterColumnsChanged   Kind = "printer-columns-changed"
	SelectableFieldsChanged Kind = "selectable-fields-changed"
	// UnhandledChange is a difference no rule reads (a keyword or field the comparison does
	// not know, or a change of a kind it does not classify): breaking, so that nothing is
	// passed unseen; the reason names the field.
	UnhandledChange Kind = "unhandled-change"
)

const refusedRecreate = "the apiserver refuses the update; deleting and re-creating the CRD to get it through deletes every stored object"

// crdLevel compares the spec of two CRDs of one name, but for the versions' schemas.
func (r *Report) crdLevel(o, n *CRD) {
	at := func(kind Kind, field string, breaking bool, reason string, ov, nv any) {
		r.add(Change{CRD: o.Name, Field: "spec." + field, Keyword: lastStep(field), Kind: kind, Breaking: breaking, Reason: reason, Old: ov, New: nv})
	}
	os, ns := o.Spec, n.Spec
	if ov, nv := os["group"], ns["group"]; !same(ov, nv) {
		at(GroupChanged, "group", true, "spec.group is immutable (it is part of the CRD's name and of every object's apiVersion): "+refusedRecreate, ov, nv)
	}
	if ov, nv := orDefault(os["scope"], "Namespaced"), orDefault(ns["scope"], "Namespaced"); !same(ov, nv) {
		at(ScopeChanged, "scope", true, "spec.scope is immutable once the CRD is established: "+refusedRecreate+"; every client's URLs change too", ov, nv)
	}
	onames, nnames := asMap(os["names"]), asMap(ns["names"])
	for _, k := range []string{"plural", "kind", "singular", "listKind"} {
		ov, nv := onames[k], nnames[k]
		if k == "singular" || k == "listKind" {
			ov, nv = orDefault(ov, derived(onames, k)), orDefault(nv, derived(nnames, k))
		}
		if same(ov, nv) {
			continue
		}
		switch k {
		case "plural":
			at(NamesChanged, "names.plural", true, "spec.names.plural is immutable (it is part of the CRD's name and of every object's URL): "+refusedRecreate, ov, nv)
		case "kind":
			at(NamesChanged, "names.kind", true, "spec.names.kind is immutable once the CRD is established: "+refusedRecreate+"; every stored object and every client names the old kind", ov, nv)
		case "singular":
			at(NamesChanged, "names.singular", true, "kubectl and scripts that name the resource by its singular name (kubectl get "+fmt.Sprint(ov)+") stop finding it", ov, nv)
		case "listKind":
			at(NamesChanged, "names.listKind", true, "list responses change their kind: clients that decode or check it fail", ov, nv)
		}
	}
	r.nameSet(o, "names.shortNames", onames["shortNames"], nnames["shortNames"],
		"kubectl and scripts that use the short name stop finding the resource", "a new short name: nothing used it before")
	r.nameSet(o, "names.categories", onames["categories"], nnames["categories"],
		"kubectl get of the category (kubectl get all, for example) no longer lists these objects", "kubectl get of the category now lists these objects as well")
	r.unhandled(o.Name, "", "spec.names.", onames, nnames, "plural", "kind", "singular", "listKind", "shortNames", "categories")
	op, np := flag(os, "preserveUnknownFields"), flag(ns, "preserveUnknownFields")
	switch {
	case op && !np:
		at(PreserveUnknownChange, "preserveUnknownFields", true, "fields the schemas do not list were kept and are now pruned, on every read from etcd and every write: stored data is lost", true, false)
	case !op && np:
		at(PreserveUnknownChange, "preserveUnknownFields", false, "fields the schemas do not list are now kept instead of pruned; nothing stored was kept under the old CRD", nilIfFalse(op), true)
	}
	r.conversion(o, asMap(os["conversion"]), asMap(ns["conversion"]))
	r.unhandled(o.Name, "", "spec.", os, ns, "group", "scope", "names", "preserveUnknownFields", "conversion",
		// Compared per version (a v1beta1 spec's shared fields apply to every version).
		"versions", "version", "validation", "subresources", "additionalPrinterColumns", "selectableFields")
}

// nameSet compares a list of names (shortNames, categories): one removed is breaking for
// whoever used it, one added is compatible.
func (r *Report) nameSet(o *CRD, field string, ov, nv any, removed, added string) {
	if same(ov, nv) {
		return
	}
	os, ns := stringSet(ov), stringSet(nv)
	for _, s := range slices.Sorted(maps.Keys(os)) {
		if !ns[s] {
			r.add(Change{CRD: o.Name, Field: "spec." + field, Keyword: lastStep(field), Kind: NamesChanged, Breaking: true, Reason: removed, Old: s})
		}
	}
	for _, s := range slices.Sorted(maps.Keys(ns)) {
		if !os[s] {
			r.add(Change{CRD: o.Name, Field: "spec." + field, Keyword: lastStep(field), Kind: NamesChanged, Reason: added, New: s})
		}
	}
}

// conversion compares spec.conversion: how objects stored in one version are read in
// another.
func (r *Report) conversion(o *CRD, oc, nc map[string]any) {
	at := func(field string, breaking bool, reason string, ov, nv any) {
		r.add(Change{CRD: o.Name, Field: "spec.conversion." + field, Keyword: lastStep(field), Kind: ConversionChanged, Breaking: breaking, Reason: reason, Old: ov, New: nv})
	}
	os, ns := orDefault(oc["strategy"], "None"), orDefault(nc["strategy"], "None")
	if !same(os, ns) {
		at("strategy", true, "objects read in a version other than the one they are stored in are now converted differently: the old conversion's results are gone, and with an unreachable webhook every such read fails", os, ns)
	}
	// v1 holds the webhook under conversion.webhook; v1beta1 beside the strategy.
	ow, nw := webhookOf(oc), webhookOf(nc)
	ocfg, ncfg := asMap(ow["clientConfig"]), asMap(nw["clientConfig"])
	for _, k := range []string{"url", "service"} {
		if ov, nv := ocfg[k], ncfg[k]; !same(ov, nv) && same(os, ns) {
			at("webhook.clientConfig."+k, true, "conversions now go to another webhook: if it is not deployed and reachable when the CRD is applied, every read in a version other than the stored one fails", ov, nv)
		}
	}
	if ov, nv := ocfg["caBundle"], ncfg["caBundle"]; !same(ov, nv) {
		at("webhook.clientConfig.caBundle", false, "the CA bundle the apiserver trusts the webhook with changed, as a certificate rotation does; nothing stored changes", ov, nv)
	}
	r.unhandled(o.Name, "", "spec.conversion.webhook.clientConfig.", ocfg, ncfg, "url", "service", "caBundle")
	orv, nrv := stringSet(ow["conversionReviewVersions"]), stringSet(nw["conversionReviewVersions"])
	if len(orv) == 0 {
		orv = stringSet(oc["conversionReviewVersions"])
	}
	if len(nrv) == 0 {
		nrv = stringSet(nc["conversionReviewVersions"])
	}
	for _, v := range slices.Sorted(maps.Keys(orv)) {
		if !nrv[v] {
			at("webhook.conversionReviewVersions", true, "the apiserver no longer sends ConversionReview "+v+": a webhook that speaks only it fails every conversion", v, nil)
		}
	}
	for _, v := range slices.Sorted(maps.Keys(nrv)) {
		if !orv[v] {
			at("webhook.conversionReviewVersions", false, "the apiserver may send ConversionReview "+v+" as well; the versions it sent before stay", nil, v)
		}
	}
	r.unhandled(o.Name, "", "spec.conversion.", oc, nc, "strategy", "webhook", "webhookClientConfig", "conversionReviewVersions")
	r.unhandled(o.Name, "", "spec.conversion.webhook.", asMap(oc["webhook"]), asMap(nc["webhook"]), "clientConfig", "conversionReviewVersions")
}

func webhookOf(c map[string]any) map[string]any {
	if w := asMap(c["webhook"]); w != nil {
		return w
	}
	if cfg := c["webhookClientConfig"]; cfg != nil {
		return map[string]any{"clientConfig": cfg}
	}
	return nil
}

// versionLevel compares the spec.versions entries of one version, but for the schema:
// served, storage, deprecation, subresources, printer columns, selectable fields. A v1beta1
// CRD's top-level subresources and printer columns apply to versions without their own.
func (r *Report) versionLevel(o, n *CRD, v string) {
	oe, ne := o.Entries[v], n.Entries[v]
	field := "spec.versions[" + v + "]."
	at := func(kind Kind, f string, breaking bool, reason string, ov, nv any) {
		r.add(Change{CRD: o.Name, Version: v, Field: field + f, Keyword: lastStep(f), Kind: kind, Breaking: breaking, Reason: reason, Old: ov, New: nv})
	}
	if ov, nv := flag(oe, "served"), flag(ne, "served"); ov && !nv {
		at(ServedChanged, "served", true, "the version is no longer served: clients asking for it get 404, as if it were removed (stored objects stay, readable in the other versions)", true, false)
	} else if !ov && nv {
		at(ServedChanged, "served", false, "the version is now served: a new endpoint, no client used it", false, true)
	}
	if ov, nv := flag(oe, "storage"), flag(ne, "storage"); ov != nv {
		reason := "objects written from now on are stored in another version; stored objects stay as they are until rewritten (status.storedVersions keeps the old one, which cannot leave spec.versions until a storage migration)"
		if nv {
			at(StorageChanged, "storage", false, "objects written from now on are stored in this version; nothing stored changes until it is rewritten", false, true)
		} else {
			at(StorageChanged, "storage", false, reason, true, false)
		}
	}
	if ov, nv := flag(oe, "deprecated"), flag(ne, "deprecated"); ov != nv {
		if nv {
			at(DeprecationChanged, "deprecated", false, "requests for the version now get a deprecation warning; they still succeed", false, true)
		} else {
			at(DeprecationChanged, "deprecated", false, "requests for the version no longer get a deprecation warning", true, false)
		}
	}
	if ov, nv := oe["deprecationWarning"], ne["deprecationWarning"]; !same(ov, nv) {
		at(DeprecationChanged, "deprecationWarning", false, "only the text of the warning requests get changes", ov, nv)
	}
	osub, nsub := perVersion(o, oe, "subresources"), perVersion(n, ne, "subresources")
	_, oStatus := asMap(osub)["status"]
	_, nStatus := asMap(nsub)["status"]
	switch {
	case oStatus && !nStatus:
		at(SubresourceChanged, "subresources.status", true, "the /status endpoint is gone (clients and controllers writing status get 404), and writes to the object now change its status too", true, nil)
	case !oStatus && nStatus:
		at(SubresourceChanged, "subresources.status", true, "creates and updates of the object now ignore its status (only /status writes it): clients that set status with the object lose those writes", nil, true)
	}
	r.scale(at, asMap(asMap(osub)["scale"]), asMap(asMap(nsub)["scale"]))
	r.unhandled(o.Name, v, field+"subresources.", asMap(osub), asMap(nsub), "status", "scale")
	r.columns(at, perVersion(o, oe, "additionalPrinterColumns"), perVersion(n, ne, "additionalPrinterColumns"))
	r.selectable(at, oe["selectableFields"], ne["selectableFields"])
	r.unhandled(o.Name, v, field+"schema.", asMap(oe["schema"]), asMap(ne["schema"]), "openAPIV3Schema")
	r.unhandled(o.Name, v, field, oe, ne, "name", "served", "storage", "deprecated", "deprecationWarning", "schema", "subresources", "additionalPrinterColumns", "selectableFields")
}

// perVersion is a version's own key, else the v1beta1 spec's shared one.
func perVersion(c *CRD, entry map[string]any, key string) any {
	if v, ok := entry[key]; ok {
		return v
	}
	return c.Spec[key]
}

type atFunc func(kind Kind, field string, breaking bool, reason string, ov, nv any)

func (r *Report) scale(at atFunc, os, ns map[string]any) {
	switch {
	case os == nil && ns == nil:
		return
	case ns == nil:
		at(SubresourceChanged, "subresources.scale", true, "the /scale endpoint is gone: kubectl scale, HorizontalPodAutoscalers and PodDisruptionBudgets on these objects fail", os, nil)
		return
	case os == nil:
		at(SubresourceChanged, "subresources.scale", false, "a new /scale endpoint: no client used it", nil, ns)
		return
	}
	for _, k := range []string{"specReplicasPath", "statusReplicasPath", "labelSelectorPath"} {
		ov, nv := os[k], ns[k]
		switch {
		case same(ov, nv):
		case ov == nil:
			at(SubresourceChanged, "subresources.scale."+k, false, "the /scale endpoint now reports a field it left out; what it read and wrote stays", nil, nv)
		default:
			at(SubresourceChanged, "subresources.scale."+k, true, "the /scale endpoint now reads or writes another field: an autoscaler or kubectl scale acts on a value stored objects do not hold there", ov, nv)
		}
	}
	r.unhandledAt(at, "subresources.scale.", os, ns, "specReplicasPath", "statusReplicasPath", "labelSelectorPath")
}

// columns compares printer columns by name. They only shape kubectl get's table (the
// apiserver's Table responses); no object, endpoint or structured output (-o yaml, -o json,
// -o custom-columns) changes: compatible, each reported.
func (r *Report) columns(at atFunc, ov, nv any) {
	byName := func(v any) (map[string]any, []string) {
		m := map[string]any{}
		var order []string
		l, _ := v.([]any)
		for _, c := range l {
			name := fmt.Sprint(asMap(c)["name"])
			if _, dup := m[name]; !dup {
				order = append(order, name)
			}
			m[name] = c
		}
		return m, order
	}
	om, oorder := byName(ov)
	nm, norder := byName(nv)
	const why = "printer columns only shape kubectl get's table; objects, endpoints and -o yaml/json/custom-columns output stay as they were"
	for _, name := range slices.Sorted(maps.Keys(om)) {
		switch oc, nc := om[name], nm[name]; {
		case nc == nil:
			at(PrinterColumnsChanged, "additionalPrinterColumns["+name+"]", false, "a column is gone: "+why, oc, nil)
		case !same(oc, nc):
			at(PrinterColumnsChanged, "additionalPrinterColumns["+name+"]", false, "a column shows something else: "+why, oc, nc)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(nm)) {
		if om[name] == nil {
			at(PrinterColumnsChanged, "additionalPrinterColumns["+name+"]", false, "a new column: "+why, nil, nm[name])
		}
	}
	if len(oorder) == len(norder) && !slices.Equal(oorder, norder) && sameKeys(om, nm) {
		at(PrinterColumnsChanged, "additionalPrinterColumns", false, "the columns are in another order: "+why, anySlice(oorder), anySlice(norder))
	}
}

func sameKeys(a, b map[string]any) bool {
	if len(a) != len(b) {
		return false
	}
	for k := range a {
		if _, ok := b[k]; !ok {
			return false
		}
	}
	return true
}

func anySlice(s []string) []any {
	out := make([]any, len(s))
	for i, x := range s {
		out[i] = x
	}
	return out
}

// selectable compares selectableFields by jsonPath: one removed makes list and watch
// requests with a field selector on it fail (the label is not supported), one added
// serves a new selector.
func (r *Report) selectable(at atFunc, ov, nv any) {
	paths := func(v any) map[string]bool {
		m := map[string]bool{}
		l, _ := v.([]any)
		for _, f := range l {
			m[fmt.Sprint(asMap(f)["jsonPath"])] = true
		}
		return m
	}
	om, nm := paths(ov), paths(nv)
	if why, dropped := r.rules.drops("selectableFields"); dropped {
		// The target's apiserver has no selectable fields on either side.
		report := at
		at = func(kind Kind, field string, _ bool, _ string, ov, nv any) {
			report(kind, field, false, why, ov, nv)
			r.notKept()
		}
	}
	for _, p := range slices.Sorted(maps.Keys(om)) {
		if !nm[p] {
			at(SelectableFieldsChanged, "selectableFields["+p+"]", true, "list and watch requests selecting on the field (--field-selector) now fail: the apiserver no longer supports the label", p, nil)
		}
	}
	for _, p := range slices.Sorted(maps.Keys(nm)) {
		if !om[p] {
			at(SelectableFieldsChanged, "selectableFields["+p+"]", false, "clients may now select on the field; nothing selected on it before", nil, p)
		}
	}
}

// unhandled reports, as UnhandledChange, every key of o or n that differs and that no
// rule reads (known lists them).
func (r *Report) unhandled(crd, version, field string, o, n map[string]any, known ...string) {
	r.unhandledAt(func(kind Kind, f string, breaking bool, reason string, ov, nv any) {
		r.add(Change{CRD: crd, Version: version, Field: f, Keyword: lastStep(f), Kind: kind, Breaking: breaking, Reason: reason, Old: ov, New: nv})
	}, field, o, n, known...)
}

func (r *Report) unhandledAt(at atFunc, field string, o, n map[string]any, known ...string) {
	for _, k := range unionKeys(o, n) {
		if slices.Contains(known, k) || same(o[k], n[k]) {
			continue
		}
		at(UnhandledChange, field+k, true, "no rule classifies a change of "+field+k+": review it by hand (counted as breaking)", o[k], n[k])
	}
}

func unionKeys(o, n map[string]any) []string {
	ks := slices.Collect(maps.Keys(o))
	for k := range n {
		if _, ok := o[k]; !ok {
			ks = append(ks, k)
		}
	}
	slices.Sort(ks)
	return ks
}

func stringSet(v any) map[string]bool {
	m := map[string]bool{}
	l, _ := v.([]any)
	for _, s := range l {
		m[fmt.Sprint(s)] = true
	}
	return m
}

func orDefault(v any, def string) any {
	if v == nil && def != "" {
		return def
	}
	return v
}

// derived is what the apiserver fills an unset name with: the lower-case kind, and the
// kind with List appended.
func derived(names map[string]any, key string) string {
	kind, _ := names["kind"].(string)
	if kind == "" {
		return ""
	}
	if key == "singular" {
		return strings.ToLower(kind)
	}
	return kind + "List"
}

func nilIfFalse(b bool) any {
	if !b {
		return nil
	}
	return true
}

func lastStep(field string) string {
	if strings.HasSuffix(field, "]") {
		field = field[:strings.LastIndexByte(field, '[')]
	}
	return field[strings.LastIndexByte(field, '.')+1:]
}
