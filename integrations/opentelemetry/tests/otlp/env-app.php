<?php

declare(strict_types=1);

// env-app.php REDIS NAME: an application configured by the environment only,
// as the package's README sets one up: the SDK's autoloader
// (OTEL_PHP_AUTOLOAD_ENABLED, OTEL_*_EXPORTER, OTEL_EXPORTER_OTLP_*) and the
// package's _register.php, both run by Composer's autoloader. Takes and
// releases NAME inside a request span; the SDK exports at shutdown.
use OpenTelemetry\API\Globals;
use OpenTelemetry\API\Trace\SpanKind;

require getenv('DISTLOCK_OTEL_AUTOLOAD');
[, $redis, $name] = $argv;

$request = Globals::tracerProvider()->getTracer('app')->spanBuilder('GET /env')->setSpanKind(SpanKind::KIND_SERVER)->startSpan();
$scope = $request->activate();
$locks = new DistLock($redis, ['prefix' => 'otel-test:']);
$locks->lock($name, 5, 1)->release();
$scope->detach();
$request->end();
echo "done\n";
