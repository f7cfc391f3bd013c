// The spec's variables and helpers as a Go program around a script: what "Go compiles the snippet"
// and "Go runs it" mean in the differential check. Variables are package variables holding one
// visitor's values (as the visitor-context model reads them); helpers panic where ours fail at run time.
import { readVariable, VARIABLES, VisitorContext } from '@funnel/visitor-context';

export interface Visitor {
  visitor: Record<string, string | number>;
  trackingFields: Record<string, string>;
  dataBuffer: Record<string, string>;
  visitorTags: string[];
  now: Date;
}

/** A Go string literal of any text: UTF-8 kept as is, quotes, backslashes and control characters escaped. */
export function goString(text: string): string {
  let out = '"';
  for (const ch of text) {
    const code = ch.codePointAt(0) as number;
    if (ch === '"' || ch === '\\') out += `\\${ch}`;
    else if (code < 0x20 || code === 0x7f) out += `\\x${code.toString(16).padStart(2, '0')}`;
    else out += ch;
  }
  return `${out}"`;
}

function goMap(entries: Record<string, string>): string {
  const pairs = Object.entries(entries).map(([k, v]) => `${goString(k)}: ${goString(v)}`);
  return `map[string]string{${pairs.join(', ')}}`;
}

const HELPERS = `
func checkFieldName(name string) {
	if len(name) < 1 || len(name) > 64 {
		panic("field name")
	}
	for _, c := range name {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == ' ' || c == '-') {
			panic("field name")
		}
	}
}

func trackingField(name string) string {
	checkFieldName(name)
	return trackingFieldValues[name]
}

func dataBuffer(name string) string {
	checkFieldName(name)
	return dataBufferValues[name]
}

func hasVisitorTag(id string) bool {
	return visitorTags[id]
}

func oneOf(value string, candidates ...string) bool {
	for _, c := range candidates {
		if c == value {
			return true
		}
	}
	return false
}

func containsAny(value string, substrings ...string) bool {
	for _, s := range substrings {
		if strings.Contains(value, s) {
			return true
		}
	}
	return false
}

func clockMinutes(hhmm int) int {
	if hhmm < 0 || hhmm > 2359 || hhmm%100 >= 60 {
		panic("clock time")
	}
	return hhmm/100*60 + hhmm%100
}

func localMinuteOfDay(offset int) int {
	if offset < -12 || offset > 14 {
		panic("utc offset")
	}
	minutes := (nowMs + int64(offset)*3600000) / 60000
	return int(((minutes % 1440) + 1440) % 1440)
}

func timeInRange(startHHMM int, endHHMM int, utcOffsetHours int) bool {
	start, end := clockMinutes(startHHMM), clockMinutes(endHHMM)
	m := localMinuteOfDay(utcOffsetHours)
	if start <= end {
		return m >= start && m < end
	}
	return m >= start || m < end
}

func timeAtOrAfter(hhmm int, utcOffsetHours int) bool {
	at := clockMinutes(hhmm)
	return localMinuteOfDay(utcOffsetHours) >= at
}

func timeAtOrBefore(hhmm int, utcOffsetHours int) bool {
	at := clockMinutes(hhmm)
	return localMinuteOfDay(utcOffsetHours) <= at
}

func localDay(utcOffsetHours int) string {
	localMinuteOfDay(utcOffsetHours)
	days := (nowMs + int64(utcOffsetHours)*3600000) / 86400000
	return []string{"thursday", "friday", "saturday", "sunday", "monday", "tuesday", "wednesday"}[((days%7)+7)%7]
}
`;

/** A whole Go program: the prelude, the script as the body of route(), and a main printing its answer. */
export function goProgram(script: string, visitor: Visitor): string {
  const context = VisitorContext.of(visitor);
  const variables = VARIABLES.map((v) => {
    const value = readVariable(context, v.name) as string | number;
    return `\t${v.name} = ${typeof value === 'string' ? goString(value) : String(value)}`;
  });
  const tags = visitor.visitorTags.map((t) => `${goString(t)}: true`).join(', ');
  return `package main

import (
	"fmt"
	"strings"
)

var (
${variables.join('\n')}
)

var trackingFieldValues = ${goMap(visitor.trackingFields)}
var dataBufferValues = ${goMap(visitor.dataBuffer)}
var visitorTags = map[string]bool{${tags}}
var nowMs int64 = ${visitor.now.getTime()}
${HELPERS}
func route() string {
${script}
}

func main() {
	defer func() {
		if recover() != nil {
			fmt.Print("\\x00panic")
		}
	}()
	fmt.Print(route())
}
`;
}

/** What main prints when route() panics. */
export const PANIC_OUTPUT = '\u0000panic';
