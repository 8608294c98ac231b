<?php
// Stand-ins for Laravel Octane's terminated events (laravel/octane is not served
// by the package registry here): the same class names, the same interface, and
// the constructor arguments Octane passes (app, sandbox, request/data, response/result).
namespace Laravel\Octane\Contracts {
    if (!interface_exists(OperationTerminated::class)) {
        interface OperationTerminated {}
    }
}

namespace Laravel\Octane\Events {
    use Laravel\Octane\Contracts\OperationTerminated;

    if (!class_exists(RequestTerminated::class)) {
        class RequestTerminated implements OperationTerminated
        {
            public function __construct(public $app, public $sandbox, public $request, public $response) {}
        }
    }
    if (!class_exists(TaskTerminated::class)) {
        class TaskTerminated implements OperationTerminated
        {
            public function __construct(public $app, public $sandbox, public $data, public $result) {}
        }
    }
}
