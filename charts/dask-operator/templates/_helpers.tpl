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

{{/*
The rules of the role named .name in files/rbac-roles.yaml, which `make
generate` writes with controller-gen from the operator's +kubebuilder:rbac
markers (the kustomize base's deploy/rbac/role.yaml, byte for byte). .root
is the chart's context. A missing role fails the render.
*/}}
{{- define "dask-operator.generatedRules" -}}
{{- $rules := "" }}
{{- range splitList "\n---\n" (printf "\n%s" (.root.Files.Get "files/rbac-roles.yaml")) }}
{{- $role := fromYaml . }}
{{- if and $role.metadata (eq $role.metadata.name $.name) }}
{{- $rules = toYaml $role.rules }}
{{- end }}
{{- end }}
{{- required (printf "files/rbac-roles.yaml has no role %s; run make generate" .name) $rules }}
{{- end }}
