<?php

declare(strict_types=1);

// auto-script.php REDIS MODE: a fresh PHP process, loaded the way an
// application is (the Composer autoloader only: _register.php decides).
// The global tracer provider is set through Globals' initializer, after the
// autoloader ran, as the SDK's own autoloader or a framework would.
// MODE: "auto" (nothing more), or "hand" (also DistLockInstrumentation::register()
// on the same provider, which must take over from the automatic one).
// Prints JSON: {"auto_at_boot": bool, "auto_now": bool, "spans": [[name, attributes]...]}.
use DistLock\OpenTelemetry\DistLockInstrumentation;
use OpenTelemetry\API\Globals;
use OpenTelemetry\API\Instrumentation\Configurator;
use OpenTelemetry\SDK\Trace\SpanExporter\InMemoryExporter;
use OpenTelemetry\SDK\Trace\SpanProcessor\SimpleSpanProcessor;
use OpenTelemetry\SDK\Trace\TracerProvider;

require getenv('DISTLOCK_OTEL_AUTOLOAD');
[, $redis, $mode] = $argv;
$autoAtBoot = DistLockInstrumentation::automatic() !== null;

$exporter = new InMemoryExporter();
$provider = new TracerProvider(new SimpleSpanProcessor($exporter));
Globals::registerInitializer(static fn (Configurator $c) => $c->withTracerProvider($provider));
if ($mode === 'hand') {
    DistLockInstrumentation::register(Globals::tracerProvider());
}

$locks = new DistLock($redis, ['prefix' => 'otel-test:']);
$locks->lock('auto:' . bin2hex(random_bytes(4)), 5, 1)->release();

echo json_encode([
    'auto_at_boot' => $autoAtBoot,
    'auto_now' => DistLockInstrumentation::automatic() !== null,
    'spans' => array_map(static fn ($s) => [$s->getName(), $s->getAttributes()->toArray()], $exporter->getSpans()),
]), "\n";
