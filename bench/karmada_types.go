// The Go types Karmada decodes a Lua table into for the kube library (corev1.PodTemplateSpec),
// written out as JSON for gitfleet to check a table as encoding/json would (see
// bench/karmada_types.py). Built inside a Karmada checkout, so the types are those of its
// vendored k8s.io/api. Each named type is listed once: a struct by its fields (JSON name to
// type), anything else by its shape. A type is written as a string: a basic kind ("string",
// "bool", "int32", "uint8", "float64", ...), "[]T", "map[string]T", "any", one of the types
// that decode themselves ("Quantity", "IntOrString", "Time", "MicroTime", "FieldsV1"), or a
// struct's name (with its package's parent folder: "core/v1.PodSpec"). Pointers are their element: a JSON null leaves any field at its zero value.
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path"
	"reflect"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

var unmarshaler = reflect.TypeOf((*json.Unmarshaler)(nil)).Elem()

type dumper struct {
	structs map[string]map[string]string
}

// name is a struct's Go name with its package's parent folder ("core/v1.PodSpec",
// "meta/v1.ObjectMeta"): two API groups' packages are both named v1.
func (d *dumper) name(t reflect.Type) string {
	return path.Base(path.Dir(t.PkgPath())) + "/" + t.String()
}

func (d *dumper) ref(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if reflect.PointerTo(t).Implements(unmarshaler) || t.Implements(unmarshaler) {
		return t.Name()
	}
	switch t.Kind() {
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return "bytes"
		}
		return "[]" + d.ref(t.Elem())
	case reflect.Map:
		if t.Key().Kind() != reflect.String {
			panic(fmt.Sprintf("map key %s", t.Key()))
		}
		return "map[string]" + d.ref(t.Elem())
	case reflect.Interface:
		return "any"
	case reflect.Struct:
		name := d.name(t)
		if _, done := d.structs[name]; !done {
			fields := map[string]string{}
			d.structs[name] = fields
			d.fields(t, fields)
		}
		return name
	default:
		return t.Kind().String()
	}
}

// fields adds t's fields as encoding/json sees them: tagged names, embedded structs promoted.
func (d *dumper) fields(t reflect.Type, into map[string]string) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		name, _, _ := strings.Cut(tag, ",")
		if name == "-" || (!f.IsExported() && !f.Anonymous) {
			continue
		}
		if f.Anonymous && name == "" {
			inner := f.Type
			for inner.Kind() == reflect.Pointer {
				inner = inner.Elem()
			}
			if inner.Kind() == reflect.Struct {
				d.fields(inner, into)
				continue
			}
		}
		if name == "" {
			name = f.Name
		}
		into[name] = d.ref(f.Type)
	}
}

func main() {
	d := &dumper{structs: map[string]map[string]string{}}
	root := d.ref(reflect.TypeOf(corev1.PodTemplateSpec{}))
	out := map[string]any{"root": root, "structs": d.structs} // maps are written sorted
	encoder := json.NewEncoder(os.Stdout)
	if err := encoder.Encode(out); err != nil {
		panic(err)
	}
}
