module github.com/stridelab/stridelab

go 1.26
