import { NodeTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-node'
import { defaultResource, detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources'
import { OTLPTraceExporter as ProtobufExporter } from '@opentelemetry/exporter-trace-otlp-proto'
import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http'
import { VERSION } from '../../version.js'
import { CliError } from './cli-error.js'

export interface OtlpTracing {
  /** Sends the spans still buffered and stops. */
  shutdown(): Promise<void>
}

/**
 * Exports spans over OTLP/HTTP when the standard OpenTelemetry variables name an endpoint; otherwise
 * nothing is loaded into the API and spans stay no-ops. The exporter reads its own variables
 * (OTEL_EXPORTER_OTLP_HEADERS, _TIMEOUT, _COMPRESSION, …), the SDK the sampler and batch ones.
 */
export function startOtlpTracing(env: NodeJS.ProcessEnv = process.env): OtlpTracing | null {
  if (!env.OTEL_EXPORTER_OTLP_ENDPOINT && !env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) return null
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true' || env.OTEL_TRACES_EXPORTER?.trim() === 'none') return null
  const protocol = (env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? env.OTEL_EXPORTER_OTLP_PROTOCOL ?? 'http/protobuf').trim()
  if (protocol !== 'http/protobuf' && protocol !== 'http/json') {
    throw new CliError(`OTEL_EXPORTER_OTLP_PROTOCOL "${protocol}" is not supported: use http/protobuf (the default) or http/json`)
  }
  const exporter = protocol === 'http/json' ? new JsonExporter() : new ProtobufExporter()
  // OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES override the defaults named here.
  const resource = defaultResource()
    .merge(resourceFromAttributes({ 'service.name': 'skillplane', 'service.version': VERSION }))
    .merge(detectResources({ detectors: [envDetector] }))
  const provider = new NodeTracerProvider({ resource, spanProcessors: [new BatchSpanProcessor(exporter)] })
  provider.register()
  return { shutdown: () => provider.shutdown() }
}
