{{- define "common-labels" -}}
testLabel: "testValue"
{{- end }}