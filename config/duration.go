package config

import (
	"fmt"
	"reflect"
	"strings"
	"time"

	"github.com/ringside-eval/ringside"
)

// The TOML library reads an integer into a time.Duration as nanoseconds, so
// `write_timeout = 10` meant 10ns and dropped every connection. Every
// duration in the file must instead be a string with a unit. The check
// walks the Config type beside the decoded file, so a time.Duration field
// added later (here or in ringside.Model) is covered without being listed.

var durationType = reflect.TypeFor[time.Duration]()

// checkDurations returns a FieldError for the first duration in raw (the
// file decoded as plain tables) that is not a non-negative string with a
// unit.
func checkDurations(raw map[string]any) error {
	return checkDurationsIn(reflect.TypeFor[Config](), raw, "")
}

func checkDurationsIn(t reflect.Type, table map[string]any, prefix string) error {
	for i := range t.NumField() {
		f := t.Field(i)
		key, _, _ := strings.Cut(f.Tag.Get("toml"), ",")
		if key == "" || key == "-" {
			continue
		}
		v, ok := table[key]
		if !ok {
			continue
		}
		field := prefix + key
		ft := f.Type
		if ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		switch {
		case ft == durationType:
			if err := checkDuration(v); err != nil {
				return ringside.FieldError(field, "%s", err)
			}
		case ft.Kind() == reflect.Struct:
			if sub, ok := v.(map[string]any); ok {
				if err := checkDurationsIn(ft, sub, field+"."); err != nil {
					return err
				}
			}
		case ft.Kind() == reflect.Slice && ft.Elem().Kind() == reflect.Struct:
			for n, sub := range tables(v) {
				if err := checkDurationsIn(ft.Elem(), sub, fmt.Sprintf("%s[%d].", field, n)); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// tables returns the tables of an array of tables, written as [[name]]
// sections or inline; anything else, the typed decode reports.
func tables(v any) []map[string]any {
	switch v := v.(type) {
	case []map[string]any:
		return v
	case []any:
		out := make([]map[string]any, len(v))
		for i, e := range v {
			out[i], _ = e.(map[string]any)
		}
		return out
	}
	return nil
}

// checkDuration accepts what time.ParseDuration does, except a bare number
// (even "0", whose unit could be anything) and a negative duration.
func checkDuration(v any) error {
	s, ok := v.(string)
	if !ok {
		return fmt.Errorf("%v is not a duration: write it as a string with a unit, like \"10s\" or \"2m\"", tomlValue(v))
	}
	d, err := time.ParseDuration(s)
	if err != nil || !strings.ContainsAny(s, "nsuµmh") {
		return fmt.Errorf("%q is not a duration: write a number with a unit, like \"10s\" or \"2m\"", s)
	}
	if d < 0 {
		return fmt.Errorf("%q must not be negative", s)
	}
	return nil
}

// tomlValue shows a value as it would be written in the file.
func tomlValue(v any) string {
	switch v := v.(type) {
	case string:
		return fmt.Sprintf("%q", v)
	case int64, float64, bool:
		return fmt.Sprint(v)
	case []any:
		return "an array"
	case map[string]any:
		return "a table"
	}
	return "this value"
}
