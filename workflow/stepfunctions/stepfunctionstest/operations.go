package stepfunctionstest

// operation answers one decoded-or-not request body.
type operation func(body []byte) (any, *apiError)

func (s *Server) operations() map[string]operation {
	return map[string]operation{
		"SendTaskSuccess":     s.sendTaskSuccess,
		"SendTaskFailure":     s.sendTaskFailure,
		"SendTaskHeartbeat":   s.sendTaskHeartbeat,
		"GetExecutionHistory": s.getExecutionHistory,
		"DescribeExecution":   s.describeExecution,
	}
}

type empty struct{}

func (s *Server) sendTaskSuccess(body []byte) (any, *apiError) {
	var in struct {
		TaskToken *string `json:"taskToken"`
		Output    *string `json:"output"`
	}
	if err := decode(body, &in); err != nil {
		return nil, err
	}
	var v validation
	v.length("taskToken", in.TaskToken, true, maxTokenLen, false)
	if in.Output == nil {
		v.length("output", nil, true, 0, true)
	} else {
		v.length("output", in.Output, false, maxOutputLen, true)
	}
	if err := v.err(); err != nil {
		return nil, err
	}
	if err := s.cb.succeed(*in.TaskToken, *in.Output); err != nil {
		return nil, err
	}
	return empty{}, nil
}

func (s *Server) sendTaskFailure(body []byte) (any, *apiError) {
	var in struct {
		TaskToken *string `json:"taskToken"`
		Error     *string `json:"error"`
		Cause     *string `json:"cause"`
	}
	if err := decode(body, &in); err != nil {
		return nil, err
	}
	var v validation
	v.length("taskToken", in.TaskToken, true, maxTokenLen, false)
	v.length("error", in.Error, false, maxErrorLen, true)
	v.length("cause", in.Cause, false, maxCauseLen, true)
	if err := v.err(); err != nil {
		return nil, err
	}
	if err := s.cb.fail(*in.TaskToken, in.Error, in.Cause); err != nil {
		return nil, err
	}
	return empty{}, nil
}

func (s *Server) sendTaskHeartbeat(body []byte) (any, *apiError) {
	var in struct {
		TaskToken *string `json:"taskToken"`
	}
	if err := decode(body, &in); err != nil {
		return nil, err
	}
	var v validation
	v.length("taskToken", in.TaskToken, true, maxTokenLen, false)
	if err := v.err(); err != nil {
		return nil, err
	}
	if err := s.cb.heartbeat(*in.TaskToken); err != nil {
		return nil, err
	}
	return empty{}, nil
}

func (s *Server) describeExecution(body []byte) (any, *apiError) {
	var in struct {
		ExecutionArn *string `json:"executionArn"`
	}
	if err := decode(body, &in); err != nil {
		return nil, err
	}
	var v validation
	v.length("executionArn", in.ExecutionArn, true, maxArnLen, false)
	if err := v.err(); err != nil {
		return nil, err
	}
	arn := *in.ExecutionArn
	status, started, ok := s.cb.describe(arn)
	if !ok {
		return nil, executionDoesNotExist(arn)
	}
	return struct {
		ExecutionArn    string       `json:"executionArn"`
		StateMachineArn string       `json:"stateMachineArn"`
		Name            string       `json:"name"`
		Status          string       `json:"status"`
		StartDate       epochSeconds `json:"startDate"`
		Input           string       `json:"input"`
		InputDetails    struct {
			Included bool `json:"included"`
		} `json:"inputDetails"`
		RedriveCount  int    `json:"redriveCount"`
		RedriveStatus string `json:"redriveStatus"`
	}{
		ExecutionArn:    arn,
		StateMachineArn: stateMachineArn(arn),
		Name:            executionName(arn),
		Status:          status,
		StartDate:       epochSeconds(started),
		Input:           "{}",
		InputDetails: struct {
			Included bool `json:"included"`
		}{Included: true},
		RedriveStatus: "NOT_REDRIVABLE",
	}, nil
}

func executionDoesNotExist(arn string) *apiError {
	return &apiError{Type: "ExecutionDoesNotExist", Message: "Execution Does Not Exist: '" + arn + "'"}
}
