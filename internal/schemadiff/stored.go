package schemadiff

import "maps"

// asStored returns the CRD obj as the apiserver stores and serves it (as
// apiextensions.k8s.io/v1), for the defaults and conversions that change
// what a comparison sees; obj itself is never modified (the compiler's
// objects are shared). What the apiserver's code does, in its order
// (TestComparesWhatTheApiserverStores holds this to it):
//
//   - v1beta1: preserveUnknownFields defaults to true (nothing is pruned);
//     spec.version becomes the one entry of spec.versions; the shared
//     validation, subresources and additionalPrinterColumns go into every
//     version without its own; a printer column's JSONPath is jsonPath;
//     conversion.webhookClientConfig and conversionReviewVersions go under
//     conversion.webhook, whose review versions default to [v1beta1].
//   - both: a conversion webhook's service.port defaults to 443.
//
// Defaults the comparison already reads as such (scope, names.singular and
// listKind, the conversion strategy) are left to it.
func asStored(obj map[string]any) map[string]any {
	spec := asMap(obj["spec"])
	if spec == nil {
		return obj
	}
	spec = maps.Clone(spec)
	if obj["apiVersion"] == "apiextensions.k8s.io/v1beta1" {
		betaToV1(spec)
	}
	conv := asMap(spec["conversion"])
	service := asMap(asMap(asMap(conv["webhook"])["clientConfig"])["service"])
	if service != nil && service["port"] == nil {
		service = maps.Clone(service)
		service["port"] = 443
		cfg := maps.Clone(asMap(asMap(conv["webhook"])["clientConfig"]))
		cfg["service"] = service
		wh := maps.Clone(asMap(conv["webhook"]))
		wh["clientConfig"] = cfg
		conv = maps.Clone(conv)
		conv["webhook"] = wh
		spec["conversion"] = conv
	}
	out := maps.Clone(obj)
	out["spec"] = spec
	return out
}

// betaToV1 turns spec, a copy of a v1beta1 CRD's spec whose nested values
// are shared, into its v1 form (see asStored), copying what it changes.
func betaToV1(spec map[string]any) {
	if _, ok := spec["preserveUnknownFields"]; !ok {
		spec["preserveUnknownFields"] = true
	}
	versions, _ := spec["versions"].([]any)
	if v, ok := spec["version"].(string); ok && len(versions) == 0 && v != "" {
		versions = []any{map[string]any{"name": v, "served": true, "storage": true}}
	}
	delete(spec, "version")
	shared := map[string]string{"validation": "schema", "subresources": "subresources", "additionalPrinterColumns": "additionalPrinterColumns"}
	out := make([]any, len(versions))
	for i, v := range versions {
		vm := asMap(v)
		if vm == nil {
			out[i] = v
			continue
		}
		vm = maps.Clone(vm)
		for from, to := range shared {
			if x, ok := spec[from]; ok {
				if _, own := vm[to]; !own {
					vm[to] = x
				}
			}
		}
		if cols, ok := vm["additionalPrinterColumns"].([]any); ok {
			renamed := make([]any, len(cols))
			for j, c := range cols {
				cm := asMap(c)
				if p, ok := cm["JSONPath"]; ok {
					cm = maps.Clone(cm)
					delete(cm, "JSONPath")
					cm["jsonPath"] = p
					renamed[j] = cm
					continue
				}
				renamed[j] = c
			}
			vm["additionalPrinterColumns"] = renamed
		}
		out[i] = vm
	}
	if len(out) > 0 {
		spec["versions"] = out
		for from := range shared {
			delete(spec, from)
		}
	}
	if conv := asMap(spec["conversion"]); conv != nil {
		conv = maps.Clone(conv)
		wh := maps.Clone(asMap(conv["webhook"]))
		if wh == nil {
			wh = map[string]any{}
		}
		for from, to := range map[string]string{"webhookClientConfig": "clientConfig", "conversionReviewVersions": "conversionReviewVersions"} {
			if x, ok := conv[from]; ok {
				wh[to] = x
				delete(conv, from)
			}
		}
		if conv["strategy"] == "Webhook" && wh["conversionReviewVersions"] == nil {
			wh["conversionReviewVersions"] = []any{"v1beta1"}
		}
		if len(wh) > 0 {
			conv["webhook"] = wh
		}
		spec["conversion"] = conv
	}
}
