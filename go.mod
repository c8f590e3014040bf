module github.com/sfnapprovals/approvals

go 1.26
