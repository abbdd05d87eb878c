package resolver

import (
	"fmt"
	"slices"
	"strings"
	"sync"
)

// The fields a CustomResourceDefinition may hold outside its schemas, by
// apiVersion: what the apiserver's strict decoding accepts (kubectl's
// default --validate=strict rejects any other). Written out by hand
// rather than read from k8s.io/apiextensions-apiserver's Go types, which
// would cost every process ~25 ms to link; TestFieldTables checks them
// against those types' json tags.

type fieldKind uint8

const (
	leafField   fieldKind = iota // a scalar, or a value not checked here (a schema, raw JSON, a timestamp)
	objectField                  // a Go struct: only its fields
	listField                    // a list of elem
	mapField                     // a map from names to elem
)

type fieldSpec struct {
	kind   fieldKind
	name   string // objectField: the Go type's name, for messages
	fields map[string]*fieldSpec
	elem   *fieldSpec
}

var leaf = &fieldSpec{kind: leafField}

func object(name string, fields map[string]*fieldSpec) *fieldSpec {
	return &fieldSpec{kind: objectField, name: name, fields: fields}
}

func listOfField(elem *fieldSpec) *fieldSpec { return &fieldSpec{kind: listField, elem: elem} }

func mapOfField(elem *fieldSpec) *fieldSpec { return &fieldSpec{kind: mapField, elem: elem} }

// crdFields returns the field table of a CRD of apiVersion (v1 or
// v1beta1).
func crdFields(apiVersion string) *fieldSpec {
	if apiVersion == apiextensionsV1beta1 {
		return crdFieldTables().v1beta1
	}
	return crdFieldTables().v1
}

type fieldTables struct{ v1, v1beta1 *fieldSpec }

// crdFieldTables builds the tables once, on first use.
var crdFieldTables = sync.OnceValue(buildFieldTables)

func buildFieldTables() fieldTables {
	ownerReference := object("OwnerReference", map[string]*fieldSpec{
		"apiVersion": leaf, "kind": leaf, "name": leaf, "uid": leaf, "controller": leaf, "blockOwnerDeletion": leaf,
	})
	managedFields := object("ManagedFieldsEntry", map[string]*fieldSpec{
		"manager": leaf, "operation": leaf, "apiVersion": leaf, "time": leaf, "fieldsType": leaf,
		"fieldsV1": leaf, "subresource": leaf,
	})
	objectMeta := object("ObjectMeta", map[string]*fieldSpec{
		"name": leaf, "generateName": leaf, "namespace": leaf, "selfLink": leaf, "uid": leaf,
		"resourceVersion": leaf, "generation": leaf, "creationTimestamp": leaf, "deletionTimestamp": leaf,
		"deletionGracePeriodSeconds": leaf, "labels": mapOfField(leaf), "annotations": mapOfField(leaf),
		"ownerReferences": listOfField(ownerReference), "finalizers": listOfField(leaf),
		"managedFields": listOfField(managedFields),
	})
	names := object("CustomResourceDefinitionNames", map[string]*fieldSpec{
		"plural": leaf, "singular": leaf, "shortNames": listOfField(leaf), "kind": leaf, "listKind": leaf,
		"categories": listOfField(leaf),
	})
	validation := object("CustomResourceValidation", map[string]*fieldSpec{"openAPIV3Schema": leaf})
	subresources := object("CustomResourceSubresources", map[string]*fieldSpec{
		"status": object("CustomResourceSubresourceStatus", map[string]*fieldSpec{}),
		"scale": object("CustomResourceSubresourceScale", map[string]*fieldSpec{
			"specReplicasPath": leaf, "statusReplicasPath": leaf, "labelSelectorPath": leaf,
		}),
	})
	column := func(jsonPath string) *fieldSpec {
		return object("CustomResourceColumnDefinition", map[string]*fieldSpec{
			"name": leaf, "type": leaf, "format": leaf, "description": leaf, "priority": leaf, jsonPath: leaf,
		})
	}
	selectable := object("SelectableField", map[string]*fieldSpec{"jsonPath": leaf})
	clientConfig := object("WebhookClientConfig", map[string]*fieldSpec{
		"url": leaf, "caBundle": leaf,
		"service": object("ServiceReference", map[string]*fieldSpec{"namespace": leaf, "name": leaf, "path": leaf, "port": leaf}),
	})
	version := func(column *fieldSpec) *fieldSpec {
		return object("CustomResourceDefinitionVersion", map[string]*fieldSpec{
			"name": leaf, "served": leaf, "storage": leaf, "deprecated": leaf, "deprecationWarning": leaf,
			"schema": validation, "subresources": subresources, "additionalPrinterColumns": listOfField(column),
			"selectableFields": listOfField(selectable),
		})
	}
	status := object("CustomResourceDefinitionStatus", map[string]*fieldSpec{
		"conditions": listOfField(object("CustomResourceDefinitionCondition", map[string]*fieldSpec{
			"type": leaf, "status": leaf, "lastTransitionTime": leaf, "reason": leaf, "message": leaf, "observedGeneration": leaf,
		})),
		"acceptedNames": names, "storedVersions": listOfField(leaf), "observedGeneration": leaf,
	})
	crd := func(spec *fieldSpec) *fieldSpec {
		return object("CustomResourceDefinition", map[string]*fieldSpec{
			"apiVersion": leaf, "kind": leaf, "metadata": objectMeta, "spec": spec, "status": status,
		})
	}
	v1 := crd(object("CustomResourceDefinitionSpec", map[string]*fieldSpec{
		"group": leaf, "names": names, "scope": leaf, "versions": listOfField(version(column("jsonPath"))),
		"preserveUnknownFields": leaf,
		"conversion": object("CustomResourceConversion", map[string]*fieldSpec{
			"strategy": leaf,
			"webhook": object("WebhookConversion", map[string]*fieldSpec{
				"clientConfig": clientConfig, "conversionReviewVersions": listOfField(leaf),
			}),
		}),
	}))
	v1beta1Column := column("JSONPath")
	v1beta1 := crd(object("CustomResourceDefinitionSpec", map[string]*fieldSpec{
		"group": leaf, "version": leaf, "names": names, "scope": leaf, "validation": validation,
		"subresources": subresources, "versions": listOfField(version(v1beta1Column)),
		"additionalPrinterColumns": listOfField(v1beta1Column), "selectableFields": listOfField(selectable),
		"preserveUnknownFields": leaf,
		"conversion": object("CustomResourceConversion", map[string]*fieldSpec{
			"strategy": leaf, "webhookClientConfig": clientConfig, "conversionReviewVersions": listOfField(leaf),
		}),
	}))
	return fieldTables{v1: v1, v1beta1: v1beta1}
}

// fieldProblem is an unknown field: where it is and what to say.
type fieldProblem struct {
	ptr string // JSON pointer of the key
	msg string
}

// unknownFields lists the fields of the CRD doc (apiVersion v1 or
// v1beta1) that its Go types do not have, in key order. extra names
// top-level keys to allow besides (a template's definitions).
func unknownFields(doc map[string]any, apiVersion string, extra ...string) []fieldProblem {
	var out []fieldProblem
	otherVersion := apiextensionsV1beta1
	if apiVersion == apiextensionsV1beta1 {
		otherVersion = apiextensionsV1
	}
	// other walks the same place in the other apiVersion's table, to
	// point out a field spelt as that version spells it.
	var walk func(v any, f, other *fieldSpec, ptr, path string)
	walk = func(v any, f, other *fieldSpec, ptr, path string) {
		switch f.kind {
		case objectField:
			m, ok := v.(map[string]any)
			if !ok {
				return // a type mismatch is the apiserver's to report
			}
			for _, k := range sortedKeys(m) {
				sub := joinField(path, k)
				child, known := f.fields[k]
				if !known && k == "$ref" {
					continue // reported as a $ref outside the schema (scanRefs)
				}
				if !known {
					if path == "" && slices.Contains(extra, k) {
						continue
					}
					names := make([]string, 0, len(f.fields))
					for n := range f.fields {
						names = append(names, n)
					}
					slices.Sort(names)
					hint := didYouMean(k, names)
					if other != nil && other.kind == objectField && other.fields[k] != nil {
						hint = fmt.Sprintf(" (that is an %s field)%s", otherVersion, hint)
					}
					out = append(out, fieldProblem{ptr: joinPointer(ptr, k), msg: fmt.Sprintf("unknown field %q: %s has no field %q%s", sub, f.name, k, hint)})
					continue
				}
				walk(m[k], child, other.field(k), joinPointer(ptr, k), sub)
			}
		case listField:
			l, _ := v.([]any)
			for i, x := range l {
				walk(x, f.elem, other.element(), joinPointer(ptr, itoa(i)), fmt.Sprintf("%s[%d]", path, i))
			}
		case mapField:
			m, _ := v.(map[string]any)
			for _, k := range sortedKeys(m) {
				walk(m[k], f.elem, other.element(), joinPointer(ptr, k), joinField(path, k))
			}
		}
	}
	walk(doc, crdFields(apiVersion), crdFields(otherVersion), "", "")
	return out
}

// field and element step through a table that may be nil.
func (f *fieldSpec) field(k string) *fieldSpec {
	if f == nil || f.kind != objectField {
		return nil
	}
	return f.fields[k]
}

func (f *fieldSpec) element() *fieldSpec {
	if f == nil || (f.kind != listField && f.kind != mapField) {
		return nil
	}
	return f.elem
}

// joinField extends a field path as the apiserver writes it
// (spec.versions[0].name).
func joinField(path, k string) string {
	if path == "" {
		return k
	}
	if strings.ContainsAny(k, ".[]") {
		return fmt.Sprintf("%s[%q]", path, k)
	}
	return path + "." + k
}
