{{/* The chart name, at most 63 characters. */}}
{{- define "dask-operator.name" -}}
{{- .Chart.Name | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* The name of every object: the release name, prefixed to the chart name unless it holds it. */}}
{{- define "dask-operator.fullname" -}}
{{- if contains .Chart.Name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}

{{- define "dask-operator.selectorLabels" -}}
app.kubernetes.io/name: {{ include "dask-operator.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "dask-operator.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
{{ include "dask-operator.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}

{{- define "dask-operator.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "dask-operator.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- required "serviceAccount.name is required when serviceAccount.create is false" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{/* The lease leader election holds (the operator's --leader-election-id default). */}}
{{- define "dask-operator.leaseName" -}}
dask-operator.kubernetes.dask.org
{{- end }}
