<?php

declare(strict_types=1);

/*
 * Auto-registration, run by Composer's autoloader (autoload.files), the way
 * OpenTelemetry's PHP instrumentations register theirs. It registers the
 * distlock observer unless:
 *  - the distlock extension is not loaded (ext-distlock is Composer's to
 *    check; an install made with --ignore-platform-req=ext-distlock, e.g. in a
 *    build stage, stays quiet);
 *  - OTEL_PHP_DISABLED_INSTRUMENTATIONS names "distlock" or is "all", or
 *    OTEL_SDK_DISABLED is true (asked through the SDK when it is installed,
 *    so its other sources of configuration count too; read from the
 *    environment otherwise).
 * An extension too old to have the observer API gets one E_USER_WARNING
 * rather than an exception: the autoloader must not stop the application.
 * Nothing here touches the global providers: they are looked up at each event.
 */

use DistLock\OpenTelemetry\DistLockInstrumentation;
use OpenTelemetry\SDK\Sdk;

if (!extension_loaded('distlock')) {
    return;
}

if (class_exists(Sdk::class)) {
    if (Sdk::isDisabled() || Sdk::isInstrumentationDisabled(DistLockInstrumentation::NAME)) {
        return;
    }
} else {
    $distlockOtelEnv = static function (string $name): string {
        $value = getenv($name);

        return strtolower(trim(is_string($value) ? $value : (string) ($_SERVER[$name] ?? '')));
    };
    $distlockOtelDisabled = array_map('trim', explode(',', $distlockOtelEnv('OTEL_PHP_DISABLED_INSTRUMENTATIONS')));
    if ($distlockOtelEnv('OTEL_SDK_DISABLED') === 'true'
        || in_array(DistLockInstrumentation::NAME, $distlockOtelDisabled, true) || $distlockOtelDisabled === ['all']) {
        unset($distlockOtelEnv, $distlockOtelDisabled);

        return;
    }
    unset($distlockOtelEnv, $distlockOtelDisabled);
}

if (!method_exists(DistLock::class, 'addObserver')) {
    trigger_error('distlock/opentelemetry: this distlock extension (' . phpversion('distlock')
        . ') has no observer API (DistLock::addObserver); the instrumentation is not registered', E_USER_WARNING);

    return;
}

DistLockInstrumentation::registerFromEnvironment();
